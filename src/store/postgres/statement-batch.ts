import type { QueryResult, QueryResultRow } from 'pg';
import type { SqlConnection } from './database.js';

interface Queued {
  text: string;
  values: unknown[];
  resolve(rows: QueryResultRow[]): void;
  reject(error: unknown): void;
}

/** `$n` placeholders of `text` moved up by `offset` (store SQL never has `$` inside literals). */
function shifted(text: string, offset: number): string {
  return text.replace(/\$(\d+)/g, (_match, index: string) => `$${Number(index) + offset}`);
}

/** Every statement's text and values, with the placeholders renumbered in order. */
function combined(queued: readonly Queued[], wrap: (text: string, index: number) => string): { texts: string[]; values: unknown[] } {
  const values: unknown[] = [];
  const texts = queued.map((statement, index) => {
    const text = wrap(shifted(statement.text, values.length), index);
    values.push(...statement.values);
    return text;
  });
  return { texts, values };
}

/**
 * A {@link SqlConnection} that collects SELECT statements and runs them as ONE round trip (`flush`): each becomes a
 * `json_agg` subquery of one row, and each caller's `query()` resolves with its rows (JSON-typed: numbers and
 * booleans as JSON gives them, bigint as a number, jsonb as parsed). For reads a store operation issues together.
 *
 * @example
 * const reads = new SelectBatch();
 * const pending = Promise.all([readA(reads), readB(reads)]);
 * await reads.flush(connection);
 * const [a, b] = await pending;
 */
export class SelectBatch implements SqlConnection {
  readonly #queued: Queued[] = [];

  query<R extends QueryResultRow = QueryResultRow>(text: string, values: unknown[] = []): Promise<QueryResult<R>> {
    return new Promise<R[]>((resolve, reject) => this.#queued.push({ text, values, resolve: resolve as (rows: QueryResultRow[]) => void, reject })).then(
      (rows) => ({ rows, rowCount: rows.length, command: 'SELECT', oid: 0, fields: [] }),
    );
  }

  /** Run every collected SELECT in one statement on `connection`. */
  async flush(connection: SqlConnection): Promise<void> {
    const queued = this.#queued.splice(0);
    if (queued.length === 0) return;
    const { texts, values } = combined(queued, (text, index) => `(SELECT coalesce(json_agg(selected), '[]'::json) FROM (${text}) AS selected) AS r${index}`);
    try {
      const result = await connection.query<Record<string, QueryResultRow[]>>(`SELECT ${texts.join(', ')}`, values);
      const row = result.rows[0] ?? {};
      queued.forEach((statement, index) => statement.resolve(row[`r${index}`] ?? []));
    } catch (error) {
      for (const statement of queued) statement.reject(error);
      throw error;
    }
  }
}

/**
 * A {@link SqlConnection} that collects data-modifying statements (UPDATE, INSERT, DELETE without a WITH of their
 * own) and runs them as ONE statement (`flush`): each a data-modifying CTE, all executed to completion against the
 * same snapshot, so they must not read each other's writes. `query()` resolves at once with no rows: for writes whose
 * results the caller does not read.
 *
 * @example
 * const writes = new WriteBatch();
 * await writeSession(writes, tables, state);
 * await insertPostgresMessages(writes, tables, 's1', rows);
 * await writes.flush(connection);
 */
export class WriteBatch implements SqlConnection {
  readonly #queued: Queued[] = [];
  readonly #guards: number[] = [];

  async query<R extends QueryResultRow = QueryResultRow>(text: string, values: unknown[] = []): Promise<QueryResult<R>> {
    this.#queued.push({ text, values, resolve: () => undefined, reject: () => undefined });
    return { rows: [], rowCount: 0, command: 'BATCHED', oid: 0, fields: [] };
  }

  /**
   * A guard: a data-modifying statement ending in `RETURNING 1` that must affect exactly one row, else the whole batch
   * fails (SQLSTATE 22012, nothing of it applied) — an optimistic write's check that what it was computed from holds.
   */
  guard(text: string, values: unknown[]): void {
    this.#guards.push(this.#queued.length);
    void this.query(text, values);
  }

  /**
   * Run every collected statement as one on `connection`, also reading the id of the transaction that ran it (as
   * `xid` text: the `xmin` of the rows it wrote); on a {@link DeferringConnection} hand them over as CTEs instead (they
   * run with the connection's next statement, in the same transaction) and return `undefined`, as when nothing ran.
   */
  async flush(connection: SqlConnection): Promise<string | undefined> {
    const queued = this.#queued.splice(0);
    const guards = this.#guards.splice(0);
    if (queued.length === 0) return undefined;
    if (isDeferring(connection)) {
      const { texts, values } = combined(queued, (text) => text);
      await connection.deferWrites(texts, values, guards.length === 0 ? undefined : { guards });
      return undefined;
    }
    const { texts, values } = combined(queued, (text, index) => `w${index} AS (${text})`);
    const text = `WITH ${texts.join(', ')} SELECT ${guardsHold(guards, 'w')} AS held, pg_current_xact_id()::xid::text AS xid`;
    const { rows } = await connection.query<{ xid: string }>(text, values);
    return rows[0]?.xid;
  }
}

/**
 * The select-list expression that fails its statement (division by zero, SQLSTATE 22012) unless every guard CTE
 * (`${prefix}${index}`, each `RETURNING 1`) affected exactly one row; `1` without guards.
 *
 * @example
 * `WITH w0 AS (UPDATE … RETURNING 1) SELECT ${guardsHold([0], 'w')}`;
 */
export function guardsHold(guards: readonly number[], prefix: string): string {
  return guards.length === 0 ? '1' : `1 / (CASE WHEN ${guardsHeld(guards, prefix)} THEN 1 ELSE 0 END)`;
}

/**
 * The condition that every guard CTE (`${prefix}${index}`, each `RETURNING 1`) affected exactly one row (`true`
 * without guards), for a statement that refuses by error on other conditions too (a step record).
 *
 * @example
 * `… CASE WHEN recorded.ok AND ${guardsHeld([0], 'held')} THEN 1 ELSE 0 END`;
 */
export function guardsHeld(guards: readonly number[], prefix: string): string {
  return guards.length === 0 ? 'true' : guards.map((index) => `(SELECT count(*) FROM ${prefix}${index}) = 1`).join(' AND ');
}

/**
 * A connection inside a transaction that can hold data-modifying statements whose results nobody reads and run them
 * as CTEs of the transaction's next statement (a step record's connection: the step commit's writes ride in the
 * record's statement, one round trip fewer). It must run held writes before any other statement it is given, so the
 * transaction's order of statements does not change.
 *
 * @example
 * if (isDeferring(connection)) connection.deferWrites(['UPDATE t SET a = $1'], [1]);
 */
export interface DeferringConnection extends SqlConnection {
  /**
   * Hold `statements` (placeholders numbered from $1 over `values`, in order) for the next statement; writes held
   * before are run first (a later batch may depend on an earlier one's effects, which one statement would not see).
   * `guards`: indexes of statements that must each affect exactly one row (see `WriteBatch.guard`).
   */
  deferWrites(statements: string[], values: unknown[], options?: { guards?: readonly number[] }): Promise<void>;
  /**
   * True when a failed guard fails the transaction before it commits and the caller learns the committed
   * transaction's id (`RecordWrite.committed`): only then may a store write optimistically.
   */
  readonly enforcesGuards?: boolean;
}

/**
 * Whether `connection` takes deferred writes.
 *
 * @example
 * if (isDeferring(connection)) connection.deferWrites(texts, values);
 */
export function isDeferring(connection: SqlConnection): connection is DeferringConnection {
  return typeof (connection as Partial<DeferringConnection>).deferWrites === 'function';
}

/**
 * `statements` as CTEs `${prefix}0 AS (…)`, … ahead of a statement whose own placeholders start after `values`
 * (the held writes of a {@link DeferringConnection}, prepended to the statement that carries them).
 *
 * @example
 * const { ctes, shift } = heldAsCtes(['UPDATE t SET a = $1'], [1], 'held');
 */
export function heldAsCtes(statements: readonly string[], values: readonly unknown[], prefix: string): { ctes: string[]; shift: (text: string) => string } {
  return { ctes: statements.map((text, index) => `${prefix}${index} AS (${text})`), shift: (text) => shifted(text, values.length) };
}
