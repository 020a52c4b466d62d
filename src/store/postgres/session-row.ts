import type { SessionState } from '../../types/session.js';
import { toJsonText } from '../../database/json.js';
import { toNumber } from './database.js';

/**
 * A row of `__agents_sessions` as node-postgres returns it (bigint columns arrive as strings).
 *
 * @example
 * const { rows } = await connection.query<SessionRow>('SELECT * FROM …');
 */
export interface SessionRow {
  session_id: string;
  agent_type: string;
  stream_id: string | null;
  status: SessionState['status'];
  mode: SessionState['mode'] | null;
  version: number;
  step_count: number;
  resume_count: number;
  message_count: number;
  /** Read by `lockSession` (written only by the interrupt-flag functions). */
  interrupt_requested?: boolean;
  /** NULL (since migration 008): the state of checkpoint `checkpoint_id` (see session-read.ts). */
  custom_state: unknown;
  state: Record<string, unknown>;
  error: string | null;
  failure_reason: string | null;
  checkpoint_id: string | null;
  parent_session_id: string | null;
  root_session_id: string | null;
  user_id: string | null;
  metadata: Record<string, string> | null;
  expires_at: string | number | null;
  created_at: string | number;
  updated_at: string | number;
}

/** One SessionState field stored in its own column. */
interface ColumnSpec {
  column: string;
  field: keyof SessionState;
  cast?: 'jsonb' | 'bigint' | 'integer';
}

/** SessionState fields with a column of their own, in parameter order after session_id. */
const COLUMNS: readonly ColumnSpec[] = [
  { column: 'agent_type', field: 'agentType' },
  { column: 'stream_id', field: 'streamId' },
  { column: 'status', field: 'status' },
  { column: 'mode', field: 'mode' },
  { column: 'version', field: 'version', cast: 'integer' },
  { column: 'step_count', field: 'stepCount', cast: 'integer' },
  { column: 'resume_count', field: 'resumeCount', cast: 'integer' },
  { column: 'custom_state', field: 'customState', cast: 'jsonb' },
  { column: 'error', field: 'error' },
  { column: 'failure_reason', field: 'failureReason' },
  { column: 'checkpoint_id', field: 'checkpointId' },
  { column: 'parent_session_id', field: 'parentSessionId' },
  { column: 'root_session_id', field: 'rootSessionId' },
  { column: 'user_id', field: 'userId' },
  { column: 'metadata', field: 'metadata', cast: 'jsonb' },
  { column: 'expires_at', field: 'expiresAt', cast: 'bigint' },
  { column: 'created_at', field: 'createdAt', cast: 'bigint' },
  { column: 'updated_at', field: 'updatedAt', cast: 'bigint' },
];
const COLUMN_FIELDS: ReadonlySet<string> = new Set(['sessionId', ...COLUMNS.map((spec) => spec.field)]);

/**
 * Columns written from a SessionState: session_id, the explicit columns, then `state`.
 *
 * @example
 * const insert = `INSERT INTO t (${SESSION_WRITE_COLUMNS.join(', ')}) VALUES (${sessionPlaceholders(1).join(', ')})`;
 */
export const SESSION_WRITE_COLUMNS: readonly string[] = ['session_id', ...COLUMNS.map((spec) => spec.column), 'state'];

/**
 * `$n` placeholders (with casts) for SESSION_WRITE_COLUMNS, numbered from `first`.
 *
 * @example
 * const placeholders = sessionPlaceholders(1); // ['$1', '$2', …, '$20::jsonb']
 */
export function sessionPlaceholders(first: number): string[] {
  const casts = [undefined, ...COLUMNS.map((spec) => spec.cast), 'jsonb'];
  return casts.map((cast, index) => `$${first + index}${cast === undefined ? '' : `::${cast}`}`);
}

/**
 * The parameters for SESSION_WRITE_COLUMNS (`custom_state` NULL with `omitCustomState`). Throws
 * InvalidArgumentError when a value is not JSON.
 *
 * @example
 * await connection.query(insertSql, sessionParameters(state));
 */
export function sessionParameters(state: SessionState, options: { omitCustomState?: boolean } = {}): unknown[] {
  const record = state as unknown as Record<string, unknown>;
  const columnValues = COLUMNS.map((spec) => {
    if (options.omitCustomState === true && spec.field === 'customState') return null;
    const value = record[spec.field];
    if (value === undefined || value === null) return null;
    return spec.cast === 'jsonb' ? toJsonText(value, spec.field) : value;
  });
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (!COLUMN_FIELDS.has(key) && value !== undefined) rest[key] = value;
  }
  return [state.sessionId, ...columnValues, toJsonText(rest, 'session state')];
}

/**
 * The SessionState a row holds (null columns are omitted, not set to undefined).
 *
 * @example
 * const state = sessionFromRow(result.rows[0]);
 */
export function sessionFromRow(row: SessionRow): SessionState {
  const state: Record<string, unknown> = { ...row.state, sessionId: row.session_id };
  const raw = row as unknown as Record<string, unknown>;
  for (const spec of COLUMNS) {
    const value = raw[spec.column];
    if (value === null || value === undefined) continue;
    state[spec.field] = spec.cast === 'bigint' ? toNumber(value) : value;
  }
  return state as unknown as SessionState;
}
