import type { AgentHooks } from './types.js';
import { HookManager } from './hook-manager.js';

/**
 * Build one run's hook manager from its four sources, fired in this order: the executor's constructor
 * manager, `agent.hooks`, `options.hooks`, then `options.hookManager`. Any source may be undefined; the
 * inputs are not changed. The logger is the constructor manager's (else the options manager's, else noop).
 *
 * @example
 * const manager = mergeHookManagers(executorHookManager, agent.hooks, options.hooks, options.hookManager);
 * await manager.fire('onAgentStart', { sessionId, runId, agentType: agent.name, stepCount: 0 });
 */
export function mergeHookManagers(
  constructorManager?: HookManager,
  agentHooks?: AgentHooks,
  optionsHooks?: AgentHooks,
  optionsHookManager?: HookManager,
): HookManager {
  const hooks: AgentHooks[] = [
    ...(constructorManager?.getHooks() ?? []),
    ...(agentHooks === undefined ? [] : [agentHooks]),
    ...(optionsHooks === undefined ? [] : [optionsHooks]),
    ...(optionsHookManager?.getHooks() ?? []),
  ];
  const logger = constructorManager?.logger ?? optionsHookManager?.logger;
  return new HookManager({ hooks, ...(logger === undefined ? {} : { logger }) });
}
