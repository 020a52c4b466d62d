/**
 * Where a run is enqueued: a DBOS queue (registered with `DBOS.registerQueue` by the processes that run it) and the
 * enqueue options DBOS applies there. Part of the run's workflow input, so a restarted start enqueues it the same way.
 *
 * @example
 * const placement: QueuePlacement = { name: 'agents', priority: 1, partitionKey: 'tenant-a' };
 */
export interface QueuePlacement {
  name: string;
  /** Lower values are dequeued first (DBOS: 0 to 2,147,483,647; unset is 0). */
  priority?: number;
  /** The run's partition on a partitioned queue (per-partition limits: one tenant cannot starve the others). */
  partitionKey?: string;
}

/**
 * Per-call enqueue options of `execute()`, `resume()` and `retry()` for an agent that runs on a queue.
 *
 * @example
 * await executor.execute(agent, 'Hi', { sessionId: 's1', priority: 0, partitionKey: 'tenant-a' });
 */
export interface QueueOptions {
  /** Lower runs first; interactive turns take a lower value than background runs. Needs a queue. */
  priority?: number;
  /** The run's partition on a partitioned queue (required there, refused elsewhere). Needs a queue. */
  partitionKey?: string;
}

/** A queue name the runtime accepts (it appears in error messages and logs, so it is bounded). */
export const QUEUE_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
/** The highest priority DBOS accepts. */
export const MAX_QUEUE_PRIORITY = 2_147_483_647;
/** The longest partition key accepted (it is stored on DBOS's workflow row). */
export const MAX_PARTITION_KEY_LENGTH = 200;

/**
 * What a run start asks of the queue decision: the queue named for it (the agent's, else the executor's default) and
 * what the call carries that a queued run cannot honour.
 *
 * @example
 * const request: PlacementRequest = { queueName: 'agents', options: { priority: 1 }, perCallRegistrations: false };
 */
export interface PlacementRequest {
  queueName: string | undefined;
  options: QueueOptions;
  /** Per-call `hooks`, `hookManager` or `usageStore`: registered in the caller's process only. */
  perCallRegistrations: boolean;
}

/**
 * The decision: start in this process, enqueue, or refuse (with the field that caused it).
 *
 * @example
 * const decision: PlacementDecision = { kind: 'queued', placement: { name: 'agents' } };
 */
export type PlacementDecision =
  { kind: 'local' } | { kind: 'queued'; placement: QueuePlacement } | { kind: 'refused'; reason: PlacementRefusal; field: string };

/**
 * Why a placement is refused: an option without a queue to apply it, a malformed priority or partition key, or
 * per-call registrations on a queue.
 *
 * @example
 * const reason: PlacementRefusal = 'option_without_queue';
 */
export type PlacementRefusal = 'option_without_queue' | 'invalid_priority' | 'invalid_partition_key' | 'per_call_registrations';

/**
 * Decide where a run starts (pure; whether the queue is registered and partitioned is the caller's check).
 *
 * @example
 * decideQueuePlacement({ queueName: undefined, options: {}, perCallRegistrations: true }); // { kind: 'local' }
 */
export function decideQueuePlacement(request: PlacementRequest): PlacementDecision {
  const { queueName, options } = request;
  if (queueName === undefined) {
    const stray = options.priority !== undefined ? 'priority' : options.partitionKey !== undefined ? 'partitionKey' : undefined;
    return stray === undefined ? { kind: 'local' } : { kind: 'refused', reason: 'option_without_queue', field: stray };
  }
  const { priority, partitionKey } = options;
  if (priority !== undefined && (!Number.isInteger(priority) || priority < 0 || priority > MAX_QUEUE_PRIORITY)) {
    return { kind: 'refused', reason: 'invalid_priority', field: 'priority' };
  }
  if (partitionKey !== undefined && (typeof partitionKey !== 'string' || partitionKey === '' || partitionKey.length > MAX_PARTITION_KEY_LENGTH)) {
    return { kind: 'refused', reason: 'invalid_partition_key', field: 'partitionKey' };
  }
  if (request.perCallRegistrations) return { kind: 'refused', reason: 'per_call_registrations', field: 'hooks' };
  return {
    kind: 'queued',
    placement: { name: queueName, ...(priority === undefined ? {} : { priority }), ...(partitionKey === undefined ? {} : { partitionKey }) },
  };
}

/**
 * The enqueue part of DBOS's `StartWorkflowParams` for a placement (nothing for a run started in place).
 *
 * @example
 * DBOS.startWorkflow(AgentWorkflows.runAgent, { workflowID, ...enqueueParams(input.queue) })(input);
 */
export function enqueueParams(placement: QueuePlacement | undefined): {
  queueName?: string;
  enqueueOptions?: { priority?: number; queuePartitionKey?: string };
} {
  if (placement === undefined) return {};
  const enqueueOptions = {
    ...(placement.priority === undefined ? {} : { priority: placement.priority }),
    ...(placement.partitionKey === undefined ? {} : { queuePartitionKey: placement.partitionKey }),
  };
  return { queueName: placement.name, ...(Object.keys(enqueueOptions).length === 0 ? {} : { enqueueOptions }) };
}
