import pg from 'pg';
import { formatTable } from '../../examples/demo/format-table.js';
import { markUntraced } from './statement-trace.js';

/**
 * Where DBOS's step rows' bytes go in one database: each index of `dbos.operation_outputs` with its size, and
 * per step name (`function_name`) the rows, their mean stored size and each column's mean `pg_column_size`.
 * Empty when the database has no DBOS tables.
 *
 * @example
 * process.stdout.write(await formatDbosRowBytes(url));
 */
export async function formatDbosRowBytes(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  markUntraced(client);
  try {
    const table = await client.query<{ exists: boolean }>("SELECT to_regclass('dbos.operation_outputs') IS NOT NULL AS exists");
    if (table.rows[0]?.exists !== true) return '';
    const indexes = await client.query<{ name: string; bytes: string; definition: string }>(
      `SELECT indexrelid::regclass::text AS name, pg_relation_size(indexrelid)::text AS bytes, pg_get_indexdef(indexrelid) AS definition
       FROM pg_index WHERE indrelid = 'dbos.operation_outputs'::regclass ORDER BY 1`,
    );
    const columns = (
      await client.query<{ name: string }>(
        "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = 'dbos' AND table_name = 'operation_outputs' ORDER BY ordinal_position",
      )
    ).rows.map((row) => row.name);
    const means = columns.map((name) => `round(avg(coalesce(pg_column_size(t.${client.escapeIdentifier(name)}), 0)), 1)::text AS ${client.escapeIdentifier(name)}`);
    const groups = await client.query<Record<string, string>>(
      `SELECT t.function_name AS step, count(*)::text AS rows, round(avg(pg_column_size(t.*)), 1)::text AS row_bytes, ${means.join(', ')}
       FROM dbos.operation_outputs t GROUP BY t.function_name ORDER BY count(*) DESC`,
    );
    const indexTable = formatTable(
      ['dbos.operation_outputs index', 'KiB', 'definition'],
      indexes.rows.map((row) => [row.name, (Number(row.bytes) / 1024).toFixed(1), row.definition]),
    );
    const rowTable = formatTable(
      ['step (function_name)', 'rows', 'mean row bytes', ...columns.map((name) => `${name} bytes`)],
      groups.rows.map((row) => [row.step ?? '', row.rows ?? '', row.row_bytes ?? '', ...columns.map((name) => row[name] ?? '')]),
    );
    return `${indexTable}\n\n${rowTable}\n`;
  } finally {
    await client.end();
  }
}
