import { DBOS } from '@dbos-inc/dbos-sdk';
import { ConfigurationError, InvalidArgumentError } from '../errors/index.js';
import type { QueuePlacement } from '../orchestration/queue-placement.js';

/**
 * Check a placement against its queue as DBOS has it registered (the `queues` table every process of the fleet
 * shares): the queue exists, and a partition key is given exactly when the queue is partitioned — on a partitioned
 * queue a run without one takes `fallbackPartitionKey()` (the caller's user, or the session's earlier runs). DBOS
 * itself would leave a run on an unknown queue ENQUEUED forever. Returns the placement to record.
 *
 * @throws ConfigurationError `QUEUE_NOT_REGISTERED` when no process registered the queue (`DBOS.registerQueue`).
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for a partitioned queue without any partition key, or a key on a
 *   queue that is not partitioned.
 * @example
 * const placement = await checkQueuePlacement({ name: 'agents' }, async () => userId);
 */
export async function checkQueuePlacement(
  placement: QueuePlacement,
  fallbackPartitionKey: () => Promise<string | undefined> = async () => undefined,
): Promise<QueuePlacement> {
  const partitioned = await registeredQueuePartitioned(placement.name);
  if (!partitioned && placement.partitionKey !== undefined) {
    throw new InvalidArgumentError(`partitionKey is given but queue "${placement.name}" is not partitioned.`, { field: 'partitionKey', queue: placement.name });
  }
  if (!partitioned || placement.partitionKey !== undefined) return placement;
  const partitionKey = await fallbackPartitionKey();
  if (partitionKey === undefined) {
    throw new InvalidArgumentError(`partitionKey is required: queue "${placement.name}" is partitioned.`, { field: 'partitionKey', queue: placement.name });
  }
  return { ...placement, partitionKey };
}

/**
 * A sub-agent child's placement: its own agent's queue (none: it starts in place, as a child workflow of its parent),
 * with its parent run's priority and, on a partitioned queue, its partition key (the tenant's runs stay its own).
 * Children do not take their parent's queue: a parent holding a slot of a limited queue while it waits for a child
 * queued behind it would wait forever.
 *
 * @throws ConfigurationError `QUEUE_NOT_REGISTERED`; InvalidArgumentError `INVALID_ARGUMENT` for a partitioned queue
 *   when the parent run has no partition key.
 * @example
 * const queue = await childQueuePlacement(childAgent.queue, parentInput.queue);
 */
export async function childQueuePlacement(queueName: string | undefined, parent: QueuePlacement | undefined): Promise<QueuePlacement | undefined> {
  if (queueName === undefined) return undefined;
  const partitioned = await registeredQueuePartitioned(queueName);
  const partitionKey = partitioned ? parent?.partitionKey : undefined;
  if (partitioned && partitionKey === undefined) {
    throw new InvalidArgumentError(`The sub-agent's queue "${queueName}" is partitioned and its parent run has no partitionKey to give it.`, {
      field: 'partitionKey',
      queue: queueName,
    });
  }
  return {
    name: queueName,
    ...(parent?.priority === undefined ? {} : { priority: parent.priority }),
    ...(partitionKey === undefined ? {} : { partitionKey }),
  };
}

/**
 * How long a queue seen registered is trusted without asking DBOS again: every start on a queue read its registration
 * (a query on the start's critical path). A queue is registered once per process start and not taken back; a change of
 * its partitioning reaches this process's checks within this time.
 */
const REGISTERED_QUEUE_TTL_MS = 1_000;
/**
 * Queues seen registered: whether each is partitioned (a read in flight, or its answer), and until when that is
 * trusted. Starts that ask while the read is in flight share it: a burst of starts reads the registration once.
 */
const registeredQueues = new Map<string, { partitioned: Promise<boolean>; until: number }>();

/** Whether the registered queue `name` is partitioned (any per-partition limit). */
async function registeredQueuePartitioned(name: string): Promise<boolean> {
  const seen = registeredQueues.get(name);
  if (seen !== undefined && seen.until > Date.now()) return seen.partitioned;
  const entry = { partitioned: readQueuePartitioned(name), until: Number.POSITIVE_INFINITY };
  registeredQueues.set(name, entry);
  try {
    await entry.partitioned;
    entry.until = Date.now() + REGISTERED_QUEUE_TTL_MS;
  } catch (error) {
    // Not registered (or the read failed): the next start asks again.
    if (registeredQueues.get(name) === entry) registeredQueues.delete(name);
    throw error;
  }
  return entry.partitioned;
}

async function readQueuePartitioned(name: string): Promise<boolean> {
  const queue = await DBOS.retrieveQueue(name);
  if (queue === null) {
    throw new ConfigurationError(
      'QUEUE_NOT_REGISTERED',
      `Queue "${name}" is not registered: register it with DBOS.registerQueue() (in the worker processes) before runs are enqueued on it.`,
      { queue: name },
    );
  }
  return queue.partitionConcurrency !== undefined || queue.partitionWorkerConcurrency !== undefined || queue.partitionRateLimit !== undefined;
}
