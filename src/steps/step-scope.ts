import type { AnyAgentConfig } from '../agent/index.js';
import { mergeHookManagers, type HookManager } from '../hooks/index.js';
import { hookManagerFor, resolveRegisteredAgent, runtimeDependencies, workflowUsageStores, type RuntimeDependencies } from './runtime-registry.js';
import { ChunkEmitter } from './stream-writers.js';
import { failureText } from './failure-text.js';

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
 * The model key of the step's agent (`provider:model`, as the adapter names it), or undefined when the adapter has none.
 *
 * @example
 * const modelKey = modelKeyOf(environment) ?? '*';
 */
export function modelKeyOf({ dependencies, agent }: Pick<StepEnvironment, 'dependencies' | 'agent'>): string | undefined {
  return dependencies.llmAdapter?.modelKey?.(agent.llmConfig);
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

/**
 * An error as it may be stored, streamed or returned: `CODE: message`, a `HelixError`'s own message or a generic one
 * with the class name (never a provider's or a tool's text), redacted and bounded; the error itself is logged at
 * debug level. See `failureText`.
 *
 * @example
 * outcome = finished('failed', 'failed', step, { error: describeError(error) });
 */
export function describeError(error: unknown): string {
  return failureText(error, { source: 'internal' });
}
