import type { QueryResult, QueryResultRow } from 'pg';

/**
 * A connection inside a transaction that can send a statement without waiting for its answer: the statement goes out
 * with the transaction's next one (node-postgres pipeline mode, one network round trip for both), and the answer —
 * `check` run on it — is awaited before the transaction commits; an error or a failed check fails the transaction.
 * For a write whose result only needs checking (a chunk append), not reading before the next statement.
 *
 * @example
 * if (canSendAhead(connection)) await connection.sendAhead(sql, values, (result) => assertAppended(result));
 */
export interface SendAheadConnection {
  /** Send `text` now (resolves once it is sent, not answered); `check` throws to fail the transaction. */
  sendAhead(text: string, values: unknown[], check: (result: QueryResult<QueryResultRow>) => void): Promise<void>;
}

/**
 * Whether `connection` takes statements sent ahead.
 *
 * @example
 * if (canSendAhead(connection)) await connection.sendAhead(sql, values, check);
 */
export function canSendAhead(connection: unknown): connection is SendAheadConnection {
  return typeof (connection as Partial<SendAheadConnection> | null)?.sendAhead === 'function';
}

/** The one property of a node-postgres `Client` (8.23+) that turns pipeline mode on and off. */
interface PipelineSwitch {
  pipeline?: boolean;
}

/**
 * Put `client` (idle, checked out of a pool for one transaction) in node-postgres pipeline mode: queries issued without
 * awaiting the previous one go out at once and are answered in order. Returns the switch back (call it once every query
 * is answered, before releasing the client), or `undefined` when this node-postgres has no pipeline mode.
 *
 * @example
 * const restore = enterPipelineMode(client);
 * try { … } finally { restore?.(); client.release(); }
 */
export function enterPipelineMode(client: object): (() => void) | undefined {
  const target = client as PipelineSwitch;
  if (typeof target.pipeline !== 'boolean') return undefined;
  const previous = target.pipeline;
  target.pipeline = true;
  return () => {
    target.pipeline = previous;
  };
}
