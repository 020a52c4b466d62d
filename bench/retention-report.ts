import pg from 'pg';
import type { DBOSAgentExecutor, PruneResult } from '../src/index.js';

/** Live bytes (sum of row sizes) of the stream chunk table and of DBOS's system tables. */
async function liveBytes(url: string): Promise<{ chunks: number; dbos: number }> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const chunks = await client.query<{ bytes: string | null }>('SELECT sum(pg_column_size(c.*)) AS bytes FROM __agents_stream_chunks c');
    const tables = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'dbos' AND table_type = 'BASE TABLE'");
    let dbos = 0;
    for (const { table_name: table } of tables.rows) {
      const { rows } = await client.query<{ bytes: string | null }>(`SELECT sum(pg_column_size(t.*)) AS bytes FROM dbos."${table.replace(/"/g, '""')}" t`);
      dbos += Number(rows[0]?.bytes ?? 0);
    }
    return { chunks: Number(chunks.rows[0]?.bytes ?? 0), dbos };
  } finally {
    await client.end();
  }
}

/** What one retention pass over every finished session reclaimed. */
export interface RetentionFigures {
  pruned: PruneResult;
  chunkBytes: { before: number; after: number };
  dbosBytes: { before: number; after: number };
}

/**
 * Prune every finished session of the benchmark database (`olderThanMs: 0`) and measure the live bytes of stream
 * chunks and DBOS records before and after.
 *
 * @example
 * const { chunkBytes } = await measureRetention(executor, database.url);
 */
export async function measureRetention(executor: DBOSAgentExecutor, url: string): Promise<RetentionFigures> {
  const before = await liveBytes(url);
  const pruned: PruneResult = { sessions: 0, chunksDeleted: 0, workflowsDeleted: 0 };
  for (;;) {
    const pass = await executor.pruneFinishedSessions({ olderThanMs: 0, limit: 1_000 });
    pruned.sessions += pass.sessions;
    pruned.chunksDeleted += pass.chunksDeleted;
    pruned.workflowsDeleted += pass.workflowsDeleted;
    if (pass.sessions < 1_000) break;
  }
  const after = await liveBytes(url);
  return { pruned, chunkBytes: { before: before.chunks, after: after.chunks }, dbosBytes: { before: before.dbos, after: after.dbos } };
}
