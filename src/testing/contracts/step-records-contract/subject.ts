import { InternalError, InvalidArgumentError } from '../../../errors/index.js';
import type { SessionStateStore } from '../../../store/state-store.js';
import type { StateStoreStepRecords } from '../../../store/step-records.js';
import type { StreamManagerStepRecords } from '../../../stream/step-records.js';
import type { StreamManager } from '../../../stream/stream-manager.js';
import type { StepRecordConnection, StepRecordParticipant } from '../../../types/step-records.js';
import type { UsageStore, UsageStoreStepRecords } from '../../../usage/usage-store.js';

/**
 * Components of the step records contract, by kind; each may declare `stepRecords`.
 *
 * @example
 * const components: StepRecordsContractComponents = { stateStore, streamManager, usageStore };
 */
export interface StepRecordsContractComponents {
  stateStore?: SessionStateStore;
  streamManager?: StreamManager;
  usageStore?: UsageStore;
}

/**
 * A connection the contract opens its transactions on (a pg `PoolClient`): released after each transaction.
 *
 * @example
 * const connection: StepRecordsContractConnection = await pool.connect();
 */
export interface StepRecordsContractConnection extends StepRecordConnection {
  release(): void | Promise<void>;
}

/**
 * What a step records contract factory returns.
 *
 * @example
 * const subject: StepRecordsContractSubject = { components: { stateStore }, elsewhere: { stateStore: other }, connect: () => pool.connect() };
 */
export interface StepRecordsContractSubject {
  /** Components writing to ONE database (migrated, connected); at least one declares `stepRecords`. */
  components: StepRecordsContractComponents;
  /**
   * Components on another database or server (migrated; at least one declares `stepRecords`): their fingerprints
   * must differ, and the stream manager's writers must be refused by this one's `handOver`.
   */
  elsewhere: StepRecordsContractComponents;
  /** A fresh connection to the database of `components`, for the caller's transactions. */
  connect(): Promise<StepRecordsContractConnection>;
  /** Close what the factory opened. */
  cleanup?(): Promise<void>;
}

/**
 * Creates the subject of `describeStepRecordsContract`; called once per block.
 *
 * @example
 * const factory: StepRecordsContractFactory = async () => ({ components: { stateStore }, elsewhere: { stateStore: other }, connect: () => pool.connect() });
 */
export type StepRecordsContractFactory = () => Promise<StepRecordsContractSubject>;

/**
 * The declared `stepRecords` of every component in `components`, with its kind.
 *
 * @example
 * for (const { kind, stepRecords } of declaredParticipants(subject.components)) await stepRecords.databaseFingerprint();
 */
export function declaredParticipants(components: StepRecordsContractComponents): Array<{ kind: string; stepRecords: StepRecordParticipant }> {
  const declared: Array<{ kind: string; stepRecords: StepRecordParticipant | undefined }> = [
    { kind: 'stateStore', stepRecords: components.stateStore?.stepRecords },
    { kind: 'streamManager', stepRecords: components.streamManager?.stepRecords },
    { kind: 'usageStore', stepRecords: components.usageStore?.stepRecords },
  ];
  return declared.flatMap(({ kind, stepRecords }) => (stepRecords === undefined ? [] : [{ kind, stepRecords }]));
}

function undeclared(kind: string): InvalidArgumentError {
  return new InvalidArgumentError(`The step records contract subject has no ${kind} declaring stepRecords.`);
}

/**
 * The subject's state store and its `stepRecords` (InvalidArgumentError when it declares none).
 *
 * @example
 * const { store, stepRecords } = stateStoreOf(subject);
 */
export function stateStoreOf(subject: StepRecordsContractSubject): { store: SessionStateStore; stepRecords: StateStoreStepRecords } {
  const store = subject.components.stateStore;
  if (store?.stepRecords === undefined) throw undeclared('stateStore');
  return { store, stepRecords: store.stepRecords };
}

/**
 * The subject's stream manager and its `stepRecords` (InvalidArgumentError when it declares none).
 *
 * @example
 * const { manager, stepRecords } = streamManagerOf(subject);
 */
export function streamManagerOf(subject: StepRecordsContractSubject): { manager: StreamManager; stepRecords: StreamManagerStepRecords } {
  const manager = subject.components.streamManager;
  if (manager?.stepRecords === undefined) throw undeclared('streamManager');
  return { manager, stepRecords: manager.stepRecords };
}

/**
 * The subject's usage store and its `stepRecords` (InvalidArgumentError when it declares none).
 *
 * @example
 * const { store, stepRecords } = usageStoreOf(subject);
 */
export function usageStoreOf(subject: StepRecordsContractSubject): { store: UsageStore; stepRecords: UsageStoreStepRecords } {
  const store = subject.components.usageStore;
  if (store?.stepRecords === undefined) throw undeclared('usageStore');
  return { store, stepRecords: store.stepRecords };
}

/**
 * Run `body` inside BEGIN … `end` on a fresh connection of the subject (ROLLBACK when `body` throws), then release it.
 *
 * @example
 * await inTransaction(subject, 'ROLLBACK', (connection) => stepRecords.recordOn(connection, records));
 */
export async function inTransaction<T>(
  subject: StepRecordsContractSubject,
  end: 'COMMIT' | 'ROLLBACK',
  body: (connection: StepRecordConnection) => Promise<T>,
): Promise<T> {
  const connection = await subject.connect();
  try {
    await connection.query('BEGIN');
    try {
      const result = await body(connection);
      await connection.query(end);
      return result;
    } catch (error) {
      await connection.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await connection.release();
  }
}

/**
 * A connection that must not be used: it counts its queries and refuses them (an argument check must refuse first).
 *
 * @example
 * const connection = untouchableConnection();
 * expect(connection.queries).toBe(0);
 */
export function untouchableConnection(): StepRecordConnection & { queries: number } {
  const connection = {
    queries: 0,
    query: async (): Promise<never> => {
      connection.queries += 1;
      return Promise.reject(new InternalError('The step records contract handed this connection to a call that must not use it.'));
    },
  };
  return connection;
}
