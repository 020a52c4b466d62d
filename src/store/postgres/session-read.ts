import { SessionNotFoundError, StoreError } from '../../errors/index.js';
import type { SessionState } from '../../types/session.js';
import { chainCte, chainSql, checkpointFromChain, type CheckpointRow } from './checkpoint-chain.js';
import type { SqlConnection } from './database.js';
import { sessionFromRow, type SessionRow } from './session-row.js';
import type { StoreTables } from './tables.js';

/**
 * A session row read with its customState resolved, and how that state is stored.
 *
 * @example
 * const { state, messageCount, stateInCheckpoint }: SessionRead = await readSession(connection, tables, 's1', { lock: true });
 */
export interface SessionRead {
  state: SessionState;
  messageCount: number;
  /** The interrupt flag (not part of SessionState). */
  interruptRequested: boolean;
  /**
   * True when the row's `custom_state` is NULL: the state is the one of the checkpoint the session points
   * at (`checkpoint_id`), rebuilt from its chain. False when the row holds the state itself.
   */
  stateInCheckpoint: boolean;
  /**
   * False when the read skipped the chain (`chain: false`) and the state is in the checkpoint: `state.customState`
   * is then an empty placeholder object, to be kept by reference or resolved with `readCheckpointState`.
   */
  customStateResolved: boolean;
  /** The row's `xmin` (the transaction that wrote it last), when the read asked for it (`xmin: true`). */
  xmin?: string;
  /** `chain_bytes` of the pointer checkpoint, when the statement's chain reached it (0 for a snapshot). */
  pointerChainBytes?: number;
}

/**
 * Read a session row and, when its `custom_state` is NULL ("the pointer checkpoint's state"), that
 * checkpoint's chain, in one statement; with `lock`, the row is locked FOR NO KEY UPDATE (writers of this
 * session queue behind the transaction, inserts of child rows do not). A locked read that waited for
 * another writer sees that writer's row but, under READ COMMITTED, not the checkpoint it inserted (the
 * statement's snapshot predates the wait): the chain then comes back without its target and is read
 * again in a second statement (checkpoint rows are never changed once written, so a chain that reaches
 * its target is complete). With `chain: false` the statement is a plain row read and the state stays
 * unresolved (see `customStateResolved`), for writes that do not look at customState. Returns undefined for
 * no session.
 *
 * @throws StoreError (STORE_ERROR) when the pointer checkpoint is missing or its chain is damaged.
 * @example
 * const read = await readSession(connection, tables, 's1', { lock: true });
 */
export async function readSession(
  connection: SqlConnection,
  tables: StoreTables,
  sessionId: string,
  options: { lock: boolean; chain?: boolean; xmin?: boolean },
): Promise<SessionRead | undefined> {
  const withChain = options.chain !== false;
  const result = await connection.query<SessionReadRow>(sessionReadSql(tables, { lock: options.lock, chain: withChain, xmin: options.xmin === true }), [
    sessionId,
  ]);
  const row = result.rows[0];
  return row === undefined ? undefined : decodeSessionRead(connection, tables, row, withChain);
}

/** A row of {@link sessionReadSql} (`latest_run`: the session's latest run as JSON, asked with `latestRun`). */
export type SessionReadRow = SessionRow & {
  chain_rows?: CheckpointRow[] | null;
  locked_xmin?: string;
  snapshot_xmin?: string | null;
  latest_run?: Record<string, unknown> | null;
};

/**
 * The statement of {@link readSession} (parameter `$1`: the session id). With `xmin`, the row also carries the
 * locked version's `xmin` and the one the statement's snapshot sees: they differ when the lock waited for a
 * concurrent writer, whose other rows this statement's snapshot then does not see. With `latestRun` (and `chain`), it
 * also carries the session's latest run (`latest_run`, a `__agents_runs` row as JSON, null for none).
 *
 * @example
 * const sql = sessionReadSql(tables, { lock: true, chain: true, xmin: true });
 */
export function sessionReadSql(tables: StoreTables, options: { lock: boolean; chain: boolean; xmin?: boolean; latestRun?: boolean }): string {
  const xmin = options.xmin === true;
  const select = `SELECT *${xmin ? ', xmin::text AS locked_xmin' : ''} FROM ${tables.sessions} WHERE session_id = $1${options.lock ? ' FOR NO KEY UPDATE' : ''}`;
  if (!options.chain) return select;
  const snapshot = xmin ? `, (SELECT xmin::text FROM ${tables.sessions} WHERE session_id = $1) AS snapshot_xmin` : '';
  // The latest run in the statement's snapshot: it cannot predate the session version read beside it.
  const run =
    options.latestRun === true
      ? `, (SELECT row_to_json(latest) FROM (SELECT * FROM ${tables.runs} WHERE session_id = $1 ORDER BY turn DESC LIMIT 1) AS latest) AS latest_run`
      : '';
  return `WITH RECURSIVE session AS (${select}), ${chainCte(tables, 'checkpoint.checkpoint_id = (SELECT checkpoint_id FROM session WHERE custom_state IS NULL)')}
       SELECT session.*, (SELECT json_agg(chain ORDER BY depth DESC) FROM chain) AS chain_rows${snapshot}${run} FROM session`;
}

/**
 * A {@link SessionReadRow} as a {@link SessionRead}: the state rebuilt from the chain the row carries, or read again
 * on `connection` when that chain does not reach the pointer (read in a snapshot from before a concurrent commit).
 *
 * @example
 * const read = await decodeSessionRead(connection, tables, row, true);
 */
export async function decodeSessionRead(connection: SqlConnection, tables: StoreTables, row: SessionReadRow, withChain: boolean): Promise<SessionRead> {
  const stateInCheckpoint = row.custom_state === null;
  let customState: unknown = row.custom_state;
  const pointer = row.chain_rows?.at(-1);
  const reached = pointer !== undefined && pointer.checkpoint_id === row.checkpoint_id;
  if (stateInCheckpoint) {
    const chain = row.chain_rows ?? [];
    customState = !withChain
      ? {}
      : reached
        ? checkpointFromChain(chain)?.customState
        : await readCheckpointState(connection, tables, row.session_id, row.checkpoint_id);
  }
  const { chain_rows: _chain, locked_xmin: _locked, snapshot_xmin: _snapshot, latest_run: _run, ...sessionRow } = row;
  return {
    state: sessionFromRow({ ...sessionRow, custom_state: customState }),
    messageCount: Number(row.message_count),
    interruptRequested: row.interrupt_requested === true,
    stateInCheckpoint,
    customStateResolved: withChain || !stateInCheckpoint,
    ...(row.locked_xmin === undefined ? {} : { xmin: row.locked_xmin }),
    ...(reached ? { pointerChainBytes: Number(pointer.chain_bytes ?? 0) } : {}),
  };
}

/**
 * The customState of checkpoint `checkpointId` (its chain, one statement), for a session row whose state lives there.
 *
 * @throws StoreError (STORE_ERROR) when the checkpoint is missing or its chain is damaged.
 * @example
 * const customState = await readCheckpointState(connection, tables, 's1', 'r1:4');
 */
export async function readCheckpointState(
  connection: SqlConnection,
  tables: StoreTables,
  sessionId: string,
  checkpointId: string | null,
): Promise<Record<string, unknown>> {
  const chain = (await connection.query<CheckpointRow>(chainSql(tables, 'checkpoint.checkpoint_id = $2'), [sessionId, checkpointId])).rows;
  const checkpoint = chain.at(-1)?.checkpoint_id === checkpointId ? checkpointFromChain(chain) : undefined;
  if (checkpoint === undefined) {
    throw new StoreError('STORE_ERROR', "The checkpoint holding a session's state is missing; the store's tables are damaged.", {
      data: { sessionId, checkpointId },
    });
  }
  return checkpoint.customState;
}

/**
 * `readSession` with a lock, inside a transaction (`chain: false` leaves a checkpoint-held state unresolved);
 * throws SessionNotFoundError when the session does not exist.
 *
 * @example
 * const { state, messageCount } = await lockSession(connection, tables, sessionId);
 */
export async function lockSession(connection: SqlConnection, tables: StoreTables, sessionId: string, options: { chain?: boolean } = {}): Promise<SessionRead> {
  const read = await readSession(connection, tables, sessionId, { lock: true, ...options });
  if (read === undefined) throw new SessionNotFoundError(sessionId);
  return read;
}
