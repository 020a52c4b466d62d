import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { ExecutorIdInUseError, InvalidArgumentError } from '../errors/index.js';
import { noopLogger } from '../hooks/logger.js';
import type { Logger } from '../hooks/types.js';
import { isDeadMember, type LivenessMemory } from '../orchestration/fleet-liveness.js';
import { QUEUE_NAME_PATTERN } from '../orchestration/queue-placement.js';
import { FleetLease } from './fleet-lease.js';
import type { ModelLimiter } from '../limits/model-limits.js';

/** An executor id the fleet accepts (it is logged, so it is bounded). */
const EXECUTOR_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
const DEFAULT_DEAD_AFTER_MS = 5_000;
const DEFAULT_SWEEP_INTERVAL_MS = 1_000;
const DEFAULT_LEASE_WAIT_MS = 120_000;
const LEASE_RETRY_MS = 250;
const RECONNECT_MS = 500;

/** The options with their defaults applied. */
type ResolvedOptions = FleetMemberOptions & Required<Pick<FleetMemberOptions, 'deadAfterMs' | 'sweepIntervalMs' | 'schemaName'>>;

/**
 * Options of {@link FleetMember.join}.
 *
 * @example
 * const options: FleetMemberOptions = { systemDatabaseUrl, executorId: 'worker-1', recoveryQueue: 'agents' };
 */
export interface FleetMemberOptions {
  /** DBOS's system database (the one in `DBOS.setConfig`). */
  systemDatabaseUrl: string;
  /** This process's DBOS `executorID` (`^[A-Za-z0-9_.:-]{1,64}$`), unique among live processes. */
  executorId: string;
  /** This process's DBOS `applicationVersion` (recorded with the member). */
  applicationVersion?: string;
  /** DBOS's application `name` (set it when several applications share the system database). */
  applicationName?: string;
  /** Where a dead member's runs that were on no queue are re-enqueued (default: DBOS's internal queue). */
  recoveryQueue?: string;
  /** A member whose lease stayed free this long is dead (default 5000 ms). */
  deadAfterMs?: number;
  /** How often the members' leases are checked (default 1000 ms). */
  sweepIntervalMs?: number;
  /** How long `join` waits for a live process holding the same executor id to exit (default 120 000 ms). */
  leaseWaitMs?: number;
  /** The executor's `modelLimiter`: a dead member's unreleased model permits are released when it is taken over. */
  modelLimiter?: Pick<ModelLimiter, 'releaseExecutor'>;
  /**
   * Called once a loss of this process's own lease (its connection dropped, and the lease not taken back) has lasted
   * half of `deadAfterMs`: before the fleet may take this member for dead and move its runs, which this process would
   * otherwise run on beside their new owners (streaming, running tools) until their records are refused. Stop the
   * process there, e.g. `() => process.exit(1)` under a supervisor that restarts it. Without it the loss is logged
   * (`fleet.lease_lost`, error) and the process runs on.
   */
  onLeaseLost?: (lostForMs: number) => void;
  /** Schema of the members table in the system database (default `helix_fleet`). */
  schemaName?: string;
  logger?: Logger;
}

/**
 * This process as a member of a fleet of workers sharing one DBOS system database. `join` (before `DBOS.launch()`)
 * takes the executor id's lease — a Postgres session advisory lock held as long as the process and its connection
 * live, so a new process started with the id of a live one (a rolling deploy) waits for that one to exit instead of
 * running its workflows beside it. `startRecovery` (after launch) watches the other members' leases: a member whose
 * lease stayed free for `deadAfterMs` is dead, and its PENDING workflows are re-enqueued (`DBOS.resumeWorkflows`) on
 * their own queue (else `recoveryQueue`) for the live workers. DBOS's step records are owned (`owner_xid`), so a member
 * taken for dead while alive cannot record a step of a run that moved on.
 *
 * @example
 * const onLeaseLost = () => process.exit(1); // the supervisor restarts it; the fleet takes its runs over
 * const member = await FleetMember.join({ systemDatabaseUrl, executorId: 'worker-1', recoveryQueue: 'agents', onLeaseLost });
 * DBOS.setConfig({ name: 'app', systemDatabaseUrl, executorID: member.executorId, applicationVersion: 'v1' });
 * await DBOS.launch();
 * member.startRecovery();
 * // on SIGTERM: await executor.close({ drain: true }); await DBOS.shutdown(); await member.handOver(); await member.leave();
 */
export class FleetMember {
  readonly executorId: string;
  readonly #options: ResolvedOptions;
  readonly #logger: Logger;
  readonly #memory: LivenessMemory = new Map();
  readonly #client: DBOSClient;
  #lease: FleetLease;
  #connectedSince: number;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  #recovering = false;
  #left = false;
  #fence: NodeJS.Timeout | undefined;

  private constructor(options: ResolvedOptions, lease: FleetLease, client: DBOSClient) {
    this.executorId = options.executorId;
    this.#options = options;
    this.#client = client;
    this.#logger = options.logger ?? noopLogger;
    this.#lease = this.#watched(lease);
    this.#connectedSince = Date.now();
  }

  /** `lease`, watched: a loss not repaired within half of `deadAfterMs` is reported (`onLeaseLost`). */
  #watched(lease: FleetLease): FleetLease {
    lease.onLost(() => {
      const lostAt = Date.now();
      clearTimeout(this.#fence);
      this.#fence = setTimeout(() => {
        if (this.#left || this.#lease !== lease) return; // taken back on a new connection meanwhile
        const lostForMs = Date.now() - lostAt;
        this.#logger.error('fleet.lease_lost', { executorId: this.executorId, lostForMs });
        this.#options.onLeaseLost?.(lostForMs);
      }, Math.floor(this.#options.deadAfterMs / 2)).unref();
    });
    return lease;
  }

  /**
   * Take `executorId`'s lease (waiting for a live holder to exit) and record the member.
   *
   * @throws InvalidArgumentError `INVALID_ARGUMENT` for a malformed executor id, queue name or interval.
   * @throws ExecutorIdInUseError `EXECUTOR_ID_IN_USE` when a live process holds the id past `leaseWaitMs`.
   */
  static async join(options: FleetMemberOptions): Promise<FleetMember> {
    const resolved = validated(options);
    const lease = await FleetLease.connect(resolved.systemDatabaseUrl, resolved.schemaName);
    try {
      await takeOwnLease(lease, resolved.executorId, resolved.leaseWaitMs ?? DEFAULT_LEASE_WAIT_MS);
      await lease.register(resolved.executorId, resolved.applicationVersion);
      const client = await DBOSClient.create({
        systemDatabaseUrl: resolved.systemDatabaseUrl,
        systemDatabasePoolSize: 2,
        ...(resolved.applicationName === undefined ? {} : { applicationName: resolved.applicationName }),
      });
      const member = new FleetMember(resolved, lease, client);
      member.keep();
      return member;
    } catch (error) {
      await lease.close();
      throw error;
    }
  }

  /** Start watching the other members (a takeover re-enqueues through a `DBOSClient` of this member). */
  startRecovery(): void {
    this.#recovering = true;
  }

  /** The member's loop: keep its own lease (reconnect when its connection dropped) and, once recovering, sweep. */
  private keep(): void {
    const tick = (): void => {
      this.#sweeping = (this.#recovering ? this.sweepOnce().then(() => undefined) : this.keepLease())
        .catch((error: unknown) => this.#logger.warn('fleet.sweep_failed', { error: error instanceof Error ? error.name : 'unknown' }))
        .finally(() => {
          if (!this.#left) this.#timer = setTimeout(tick, this.#options.sweepIntervalMs).unref();
        });
    };
    this.#timer = setTimeout(tick, this.#options.sweepIntervalMs).unref();
  }

  private async keepLease(): Promise<void> {
    if (this.#lease.lost) await this.reconnect();
  }

  /**
   * One sweep: every other member's lease is probed; a member dead for `deadAfterMs` has its PENDING workflows
   * re-enqueued and, once it has none, is forgotten. Returns the number of workflows re-enqueued.
   */
  async sweepOnce(): Promise<number> {
    await this.keepLease();
    let moved = 0;
    for (const executorId of await this.#lease.others(this.executorId)) {
      const free = await this.#lease.tryLock(executorId);
      try {
        const standing = { connectedSince: this.#connectedSince };
        if (isDeadMember(this.#memory, { executorId, free, at: Date.now() }, standing, this.#options.deadAfterMs)) {
          moved += await this.takeOver(executorId);
        }
      } finally {
        if (free) await this.#lease.unlock(executorId);
      }
    }
    return moved;
  }

  /**
   * Hand this process's PENDING workflows to the fleet now (re-enqueued on their queues, else `recoveryQueue`) instead
   * of after `deadAfterMs`: call it after `executor.close({ drain: true })` (every run held at a step boundary or
   * ended) and `DBOS.shutdown()` (this process dequeues nothing more). Returns how many were handed over.
   *
   * @example
   * await executor.close({ drain: true }); await DBOS.shutdown(); await member.handOver(); await member.leave();
   */
  async handOver(): Promise<number> {
    return this.reenqueue(this.executorId);
  }

  /** Stop watching and release the lease (after `DBOS.shutdown()`); the fleet takes over what this process left. */
  async leave(): Promise<void> {
    this.#left = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    clearTimeout(this.#fence);
    await this.#sweeping;
    await this.#lease.close();
    await this.#client.destroy();
  }

  /** Re-enqueue a dead member's PENDING workflows (its lease held by this sweep), and forget it once it has none. */
  private async takeOver(executorId: string): Promise<number> {
    // Its model permits would hold their slots until they lapse: the calls they were taken for died with it.
    const released = (await this.#options.modelLimiter?.releaseExecutor(executorId)) ?? 0;
    if (released > 0) this.#logger.info('fleet.permits_released', { executorId, permits: released });
    const moved = await this.reenqueue(executorId);
    if (moved === 0) {
      await this.#lease.forget(executorId);
      this.#memory.delete(executorId);
    } else {
      this.#logger.info('fleet.member_taken_over', { executorId, workflows: moved });
    }
    return moved;
  }

  /** Re-enqueue an executor's PENDING workflows on their own queues (else `recoveryQueue`, else DBOS's internal one). */
  private async reenqueue(executorId: string): Promise<number> {
    const pending = await this.#client.listWorkflows({ status: 'PENDING', executorId, loadInput: false, loadOutput: false });
    const byQueue = new Map<string | undefined, string[]>();
    for (const workflow of pending) {
      const queue = workflow.queueName ?? this.#options.recoveryQueue;
      byQueue.set(queue, [...(byQueue.get(queue) ?? []), workflow.workflowID]);
    }
    for (const [queueName, workflowIds] of byQueue) await this.#client.resumeWorkflows(workflowIds, queueName === undefined ? {} : { queueName });
    return pending.length;
  }

  /** A lost lease connection: connect again and take this process's own lease back (its watch starts over). */
  private async reconnect(): Promise<void> {
    for (;;) {
      try {
        const lease = await FleetLease.connect(this.#options.systemDatabaseUrl, this.#options.schemaName);
        // Given up when the member leaves meanwhile (leave() awaits this loop).
        const waitMs = this.#options.leaseWaitMs ?? DEFAULT_LEASE_WAIT_MS;
        await takeOwnLease(lease, this.executorId, waitMs, () => this.#left).catch(async (error: unknown) => {
          await lease.close();
          throw error;
        });
        this.#lease = this.#watched(lease);
        clearTimeout(this.#fence);
        this.#connectedSince = Date.now();
        this.#memory.clear();
        return;
      } catch (error) {
        if (this.#left || ExecutorIdInUseError.isInstance(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    }
  }
}

async function takeOwnLease(lease: FleetLease, executorId: string, waitMs: number, stopped: () => boolean = () => false): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (!(await lease.tryLock(executorId))) {
    if (Date.now() >= deadline || stopped()) throw new ExecutorIdInUseError(executorId);
    await new Promise((resolve) => setTimeout(resolve, LEASE_RETRY_MS));
  }
}

function validated(options: FleetMemberOptions): ResolvedOptions {
  if (typeof options?.systemDatabaseUrl !== 'string' || options.systemDatabaseUrl === '') throw new InvalidArgumentError('systemDatabaseUrl is required.', { field: 'systemDatabaseUrl' });
  if (typeof options.executorId !== 'string' || !EXECUTOR_ID_PATTERN.test(options.executorId)) {
    throw new InvalidArgumentError('executorId must match ^[A-Za-z0-9_.:-]{1,64}$.', { field: 'executorId' });
  }
  if (options.recoveryQueue !== undefined && !QUEUE_NAME_PATTERN.test(options.recoveryQueue)) {
    throw new InvalidArgumentError('recoveryQueue must be a DBOS queue name matching ^[A-Za-z0-9_.:-]{1,64}$.', { field: 'recoveryQueue' });
  }
  if (options.onLeaseLost !== undefined && typeof options.onLeaseLost !== 'function') {
    throw new InvalidArgumentError('onLeaseLost must be a function.', { field: 'onLeaseLost' });
  }
  for (const field of ['deadAfterMs', 'sweepIntervalMs', 'leaseWaitMs'] as const) {
    const value = options[field];
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new InvalidArgumentError(`${field} must be a positive integer (ms).`, { field });
  }
  return {
    ...options,
    deadAfterMs: options.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS,
    sweepIntervalMs: options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
    schemaName: options.schemaName ?? 'helix_fleet',
  };
}
