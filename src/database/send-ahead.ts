import type { QueryResult, QueryResultRow } from 'pg';

/**
 * A connection inside a transaction that can send a statement without waiting for its answer: the statement goes out
 * with the transaction's next ones (node-postgres pipeline mode, one network round trip for all), possibly with its
 * COMMIT. So the statement must FAIL (raise an error) whenever it must not commit — a `check` of its answer only
 * names the failure for the caller (`refused` maps the statement's error), it cannot stop the COMMIT.
 * For a write whose result only needs checking (a chunk append), not reading before the next statement.
 *
 * @example
 * if (canSendAhead(connection)) await connection.sendAhead(raisingSql, values, (result) => assertAppended(result), toStreamClosed);
 */
export interface SendAheadConnection {
  /** Send `text` now (resolves once it is sent, not answered); the transaction fails with `check`'s or `refused`'s error. */
  sendAhead(text: string, values: unknown[], check: (result: QueryResult<QueryResultRow>) => void, refused?: (error: unknown) => unknown): Promise<void>;
}

/**
 * Whether `error` is a statement refusing by error, the way statements sent ahead (and a record that must not commit)
 * refuse: a division by zero their SQL provokes on purpose (SQLSTATE 22012).
 *
 * @example
 * if (isRefusedByError(error)) throw closedStreamError();
 */
export function isRefusedByError(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '22012';
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

/** What {@link writeAhead} writes through: a store connection, which may take statements sent ahead. */
interface WritingConnection {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/**
 * Run a write whose answer the caller does not read: sent ahead when `connection` takes it (a pipelined transaction's;
 * its failure then fails that transaction, as `refused` maps it), else awaited here (its failure thrown as `refused`
 * maps it). Either way the write runs in its place in the connection's order of statements.
 *
 * @example
 * await writeAhead(connection, 'UPDATE sessions SET message_count = $2 WHERE session_id = $1', ['s1', 3]);
 */
export async function writeAhead(connection: WritingConnection, text: string, values: unknown[], refused?: (error: unknown) => unknown): Promise<void> {
  if (canSendAhead(connection)) return connection.sendAhead(text, values, () => undefined, refused);
  try {
    await connection.query(text, values);
  } catch (error) {
    throw refused === undefined ? error : refused(error);
  }
}
