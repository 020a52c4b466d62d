import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnyAgentConfig } from '../agent/index.js';
import { ConfigurationError, InvalidArgumentError } from '../errors/index.js';
import { decideQueuePlacement, type PlacementRefusal, type QueueOptions, type QueuePlacement } from '../orchestration/queue-placement.js';
import { checkQueuePlacement } from '../steps/queue-check.js';
import type { DBOSAgentExecutorConfig, ExecuteOptions } from './types.js';
import type { SessionStateStore } from '../store/state-store.js';
import { recordedWorkflowInput } from '../orchestration/workflow-input.js';

/** The placement of the run start in progress (set by `RunLauncher.placing` around the start). */
const placementScope = new AsyncLocalStorage<QueuePlacement | undefined>();

/**
 * Run `start` with its runs placed at `placement` (read back by {@link currentPlacement} where inputs are built).
 *
 * @example
 * await withPlacement(await placeRun(config, agent, options), () => start());
 */
export function withPlacement<T>(placement: QueuePlacement | undefined, start: () => Promise<T>): Promise<T> {
  return placementScope.run(placement, start);
}

/**
 * The placement of the run start in progress, if it is queued.
 *
 * @example
 * const queue = currentPlacement();
 */
export function currentPlacement(): QueuePlacement | undefined {
  return placementScope.getStore();
}

/**
 * What a run start passes to its placement: the queue options and what a queued run cannot honour.
 *
 * @example
 * const options: PlacementOptions = { priority: 1, persistent: false };
 */
export type PlacementOptions = QueueOptions &
  Partial<Pick<ExecuteOptions, 'hooks' | 'hookManager' | 'usageStore' | 'userId'>> & {
    persistent?: boolean;
    /** The session a resume or retry continues (its earlier runs' partition key is the default). */
    sessionId?: string;
  };

/**
 * Where a run of `agent` starts: `undefined` in this process, else the queue it is enqueued on (the agent's `queue`,
 * else the executor's for a standard run; a persistent session's generations on the agent's own only), checked against DBOS's registered queues. On a partitioned queue a run
 * without `partitionKey` is the tenant's: `userId` (the `AgentServer` passes the authenticated principal), else the
 * partition of the session's latest run, else the session's user. Nothing is written.
 *
 * @throws ConfigurationError `NO_LLM_ADAPTER` for a run to start in place by an executor without `llmAdapter`;
 *   `QUEUE_NOT_SUPPORTED` for per-call `hooks`, `hookManager` or `usageStore` on a queued run; `QUEUE_NOT_REGISTERED`
 *   for a queue no process registered.
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for `priority`/`partitionKey` without a queue, out of range, or a
 *   partition key that does not match the queue's partitioning.
 * @example
 * const placement = await placeRun(config, agent, { priority: 0 });
 */
export async function placeRun(
  config: Pick<DBOSAgentExecutorConfig, 'queue' | 'llmAdapter' | 'stateStore'>,
  agent: AnyAgentConfig,
  options: PlacementOptions,
): Promise<QueuePlacement | undefined> {
  const persistent = options.persistent === true;
  const decision = decideQueuePlacement({
    queueName: agent.queue ?? (persistent ? undefined : config.queue),
    options: {
      ...(options.priority === undefined ? {} : { priority: options.priority }),
      ...(options.partitionKey === undefined ? {} : { partitionKey: options.partitionKey }),
    },
    perCallRegistrations: options.hooks !== undefined || options.hookManager !== undefined || options.usageStore !== undefined,
  });
  switch (decision.kind) {
    case 'local':
      if (config.llmAdapter === undefined) {
        throw new ConfigurationError(
          'NO_LLM_ADAPTER',
          `Agent "${agent.name}" has no queue and this executor has no llmAdapter to run it here: give the agent (or the executor) a queue, or an llmAdapter.`,
          { agentName: agent.name },
        );
      }
      return undefined;
    case 'queued':
      return checkQueuePlacement(
        decision.placement,
        async () => options.userId ?? (options.sessionId === undefined ? undefined : await earlierPartitionKey(config.stateStore, options.sessionId)),
      );
    case 'refused':
      throw placementRefusal(decision.reason, decision.field, agent.name);
  }
}

/** The partition of a session's latest run (its recorded workflow input), else the session's user. */
async function earlierPartitionKey(stateStore: SessionStateStore, sessionId: string): Promise<string | undefined> {
  const run = await stateStore.getCurrentRun(sessionId);
  const recorded = recordedWorkflowInput(run?.metadata)?.queue?.partitionKey;
  return recorded ?? (await stateStore.loadState(sessionId))?.userId;
}

function placementRefusal(reason: PlacementRefusal, field: string, agentName: string): Error {
  switch (reason) {
    case 'option_without_queue':
      return new InvalidArgumentError(`options.${field} applies to queued runs only: agent "${agentName}" has no queue (neither its own nor the executor's).`, {
        field,
      });
    case 'invalid_priority':
      return new InvalidArgumentError('options.priority must be an integer from 0 to 2147483647 (lower runs first).', { field });
    case 'invalid_partition_key':
      return new InvalidArgumentError('options.partitionKey must be a non-empty string of at most 200 characters.', { field });
    case 'per_call_registrations':
      return new ConfigurationError(
        'QUEUE_NOT_SUPPORTED',
        `Agent "${agentName}" runs on a queue, where per-call hooks, hookManager and usageStore cannot follow the run to its worker: put them on the agent or the worker's executor.`,
        { agentName, field: 'hooks' },
      );
  }
}
