import type { QueryResult, QueryResultRow } from 'pg';

/**
 * A connection inside a caller's open transaction on a component's database (a pg client, or the fused journal's
 * connection over one): what a component's `stepRecords` writes on. The caller commits or rolls back; the
 * component never does. It may also take statements sent ahead (node-postgres pipeline mode) or hold a write batch
 * for the next statement; a component that looks for those must work without them.
 *
 * @example
 * const client = await pool.connect();
 * await client.query('BEGIN');
 * await store.stepRecords?.commitStepOn(client, 's1', { stepCount: 1 }, messages, meta);
 * await client.query('COMMIT');
 */
export interface StepRecordConnection {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

/**
 * What every component's `stepRecords` offers: the database it writes to. The fused journal commits a component's
 * writes in a step's record transaction only when this fingerprint equals that of DBOS's system database.
 *
 * @example
 * const participant: StepRecordParticipant = { databaseFingerprint: () => databaseFingerprint(pool) };
 */
export interface StepRecordParticipant {
  /**
   * Names the database this component writes to: equal for every component on the same database of the same
   * running server, different for another database or server (see `DATABASE_FINGERPRINT_SQL`); stable while the
   * server runs. Waits out transient errors like the component's other methods.
   */
  databaseFingerprint(): Promise<string>;
}

/**
 * What a committed step record transaction tells the writes it carried.
 *
 * @example
 * const outcome: StepRecordOutcome = { transactionId: '1234' };
 */
export interface StepRecordOutcome {
  /** The committed transaction's id as Postgres's 32-bit `xid` (text), when known. */
  transactionId?: string;
}

/**
 * An idle node-postgres client of a component's pool, outside any transaction, lent for ONE transaction its borrower
 * runs itself (BEGIN … COMMIT, possibly pipelined; see `StepRecordConnections.withConnection`). Named statements
 * (`{ name, text, values }`) are prepared once per client.
 *
 * @example
 * await stateStore.stepRecords?.withConnection?.(async (client) => client.query('SELECT 1'));
 */
export interface StepRecordClient {
  query<R extends QueryResultRow = QueryResultRow>(
    config: string | { name?: string; text: string; values?: unknown[] },
    values?: unknown[],
  ): Promise<QueryResult<R>>;
}

/**
 * A participant that also lends connections of its pool (the Postgres state store's `stepRecords`): the public journal
 * commits a step's deferred writes of every participant on that database in one transaction on such a connection
 * (pipelined: BEGIN, the writes and COMMIT in one round trip), before DBOS records the step.
 *
 * @example
 * const outcome = await participant.withConnection(async (client) => runTransaction(client));
 */
export interface StepRecordConnections extends StepRecordParticipant {
  /**
   * Run `body` on one connection of the participant's pool, outside any transaction (the body opens and ends its own,
   * and leaves none open), retried whole with a new connection through transient failures like the participant's own
   * writes; other failures leave as the participant's errors.
   */
  withConnection<T>(body: (client: StepRecordClient) => Promise<T>): Promise<T>;
}
