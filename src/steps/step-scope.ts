import type { AnyAgentConfig } from '../agent/index.js';
import { mergeHookManagers, type HookManager } from '../hooks/index.js';
import { hookManagerFor, resolveRegisteredAgent, runtimeDependencies, workflowUsageStores, type RuntimeDependencies } from './runtime-registry.js';
import { ChunkEmitter } from './stream-writers.js';

export type { RunScope } from '../orchestration/workflow-input.js';
import type { RunScope } from '../orchestration/workflow-input.js';

/** What a step body works with: bound dependencies, the agent, its hooks and a chunk emitter. */
export interface StepEnvironment {
  dependencies: RuntimeDependencies;
  agent: AnyAgentConfig;
  hooks: HookManager;
  emitter: ChunkEmitter;
}

/** Resolve a step's environment (waits for the executor and agent registration in a starting process). */
export async function stepEnvironment(scope: RunScope, step: number): Promise<StepEnvironment> {
  const bound = await runtimeDependencies();
  const usageStore = workflowUsageStores.get(scope.workflowId);
  const dependencies = usageStore === undefined ? bound : { ...bound, usageStore };
  const agent = await resolveRegisteredAgent(scope.agentType);
  const hooks = hookManagerFor(turnKeyOf(scope), mergeHookManagers(dependencies.hookManager, agent.hooks));
  const emitter = new ChunkEmitter(dependencies.streamManager, scope.streamId, scope.sessionId, scope.agentType, step);
  return { dependencies, agent, hooks, emitter };
}

/**
 * The key of a run's process-local registrations (hooks, stream-reset tracking): `turnKey` for a persistent turn,
 * else the workflow id.
 *
 * @example
 * workflowHookManagers.unregister(turnKeyOf(scope));
 */
export function turnKeyOf(scope: RunScope): string {
  return scope.turnKey ?? scope.workflowId;
}

/** The hook event identity of a scope. */
export function hookIdentity(scope: RunScope): { sessionId: string; runId: string; agentType: string } {
  return { sessionId: scope.sessionId, runId: scope.runId, agentType: scope.agentType };
}

/** A short, payload-free description of an error for logs, streams and results. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${error.name} (${code}): ${error.message}` : `${error.name}: ${error.message}`;
  }
  return 'Unknown error';
}
