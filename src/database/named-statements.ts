import { createHash } from 'node:crypto';
import type { QueryConfig, QueryResult, QueryResultRow } from 'pg';

/**
 * How many distinct statement texts run as named prepared statements (the first ones a process runs: its hot
 * statements); the rest run unnamed. Bounds what each connection keeps prepared on the server.
 */
const MAX_NAMED_TEXTS = 128;
const names = new Map<string, string>();
/** Bumped when a prepared plan went stale under a schema change: every text is prepared again under a new name. */
let generation = 0;

/**
 * `text` with `values` as node-postgres runs it: a named prepared statement (named by the md5 of its text), so each
 * connection parses and plans it once instead of on every run — planning was most of the server's time of a turn's
 * reads (a burst of turns: 1.98 ms planning and 1.27 ms executing per turn, pg_stat_statements) — as long as fewer
 * than 128 texts were named; else unnamed.
 */
function namedStatement(text: string, values?: unknown[]): QueryConfig {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED_TEXTS) {
    name = `helix_${generation}_${createHash('md5').update(text).digest('hex')}`;
    names.set(text, name);
  }
  const config: QueryConfig = name === undefined ? { text } : { name, text };
  if (values !== undefined) config.values = values;
  return config;
}

/**
 * Postgres refuses a prepared statement whose plan's result columns changed under it (a migration added a column to
 * a table it reads with `*`, while this process ran: a rolling deploy). The statement applied nothing; from now on
 * every text is prepared again under a new name (the stale ones stay on their connections until these close).
 *
 * @example
 * if (isStalePreparedPlan(error)) retry();
 */
export function isStalePreparedPlan(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

/**
 * Run `query` (a {@link namedStatement}); when Postgres says a prepared plan went stale, name every text anew before
 * rethrowing (the caller's retry then prepares it again).
 */
async function runNamed<R>(query: () => Promise<R>): Promise<R> {
  try {
    return await query();
  } catch (error) {
    if (isStalePreparedPlan(error)) {
      generation += 1;
      names.clear();
    }
    throw error;
  }
}

/** A connection that takes a statement config (a pg client or pool). */
export interface NamingTarget {
  query<R extends QueryResultRow = QueryResultRow>(config: QueryConfig): Promise<QueryResult<R>>;
}

/** A connection taking a statement's text and values (what store and journal code runs statements on). */
export interface TextConnection {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

/**
 * `client` (a pg client or pool) running every statement as a {@link namedStatement}; a stale plan names every text
 * anew before the error reaches the caller's retry.
 *
 * @example
 * await savePostgresState({ database: connectionDatabase(preparedStatements(client)), tables }, 's1', state);
 */
export function preparedStatements(client: NamingTarget): TextConnection {
  return {
    query: <R extends QueryResultRow>(text: string, values?: unknown[]) => runNamed(() => client.query<R>(namedStatement(text, values))),
  };
}
