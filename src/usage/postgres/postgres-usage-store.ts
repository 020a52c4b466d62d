import pg from 'pg';
import { databaseFingerprint } from '../../database/database-fingerprint.js';
import { runPostgresOperation } from '../../database/postgres-operation.js';
import { transientPostgresCondition } from '../../database/transient-postgres-error.js';
import { resolveTransientRetry, retryTransient, type TransientRetryOptions, type TransientRetryPolicy } from '../../database/transient-retry.js';
import { quoteIdentifier } from '../../database/sql-identifier.js';
import { runMigrations } from '../../store/index.js';
import { EMPTY_USAGE_SUMMARY, type UsageKind, type UsageRecord, type UsageSummary } from '../../types/usage.js';
import type { UsageStore, UsageStoreStepRecords } from '../usage-store.js';

/**
 * Options of `PostgresUsageStore`.
 *
 * @example
 * const options: PostgresUsageStoreOptions = { connectionString: process.env.DATABASE_URL!, schema: 'helix' };
 */
export type PostgresUsageStoreOptions = ({ connectionString: string } | { pool: pg.Pool }) & {
  /** Postgres schema of the `__agents_*` tables. Default 'public'. */
  schema?: string;
  /** How long each method waits out transient Postgres errors before throwing a retryable StoreError. Default: 3 minutes. */
  retry?: TransientRetryOptions;
};

interface UsageRow {
  record_key: string;
  session_id: string;
  run_id: string;
  kind: UsageKind;
  name: string;
  step: number | null;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  duration_ms: number | null;
  success: boolean;
  created_at: string;
  root_session_id: string | null;
}

/**
 * UsageStore on the `__agents_usage` table: one row per LLM call or tool call, idempotent by record key,
 * summed per session and run in SQL. Transient Postgres errors are waited out (see `retry`); `record` is
 * idempotent by record id, so a retry after a lost reply stores nothing twice. Failures leave as StoreError.
 *
 * @example
 * const usageStore = new PostgresUsageStore({ connectionString: process.env.DATABASE_URL! });
 * await usageStore.migrate();
 * const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, usageStore });
 */
export class PostgresUsageStore implements UsageStore {
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly table: string;
  private readonly schema: string;
  private readonly retry: TransientRetryPolicy;
  /** `record` inside a step record's transaction, and the database it writes to (see `UsageStore.stepRecords`). */
  readonly stepRecords: UsageStoreStepRecords;

  constructor(options: PostgresUsageStoreOptions) {
    this.ownsPool = 'connectionString' in options;
    this.pool = 'connectionString' in options ? new pg.Pool({ connectionString: options.connectionString, max: 4 }) : options.pool;
    this.schema = options.schema ?? 'public';
    this.table = `${quoteIdentifier(this.schema)}.__agents_usage`;
    this.retry = resolveTransientRetry(options.retry);
    if (this.ownsPool) {
      // A client dropped by a restart must not become an uncaught 'error' event; queries see their own failures.
      this.pool.on('error', () => undefined);
      this.pool.on('connect', (client) => client.on('error', () => undefined));
    }
    this.stepRecords = {
      databaseFingerprint: () => runPostgresOperation('name the database', () => databaseFingerprint(this.pool), { retry: this.retry }),
      recordOn: async (connection, records) => {
        if (records.length === 0) return;
        const { text, values } = this.insertStatement(records);
        await connection.query(text, values);
      },
    };
  }

  /** Apply the package's migrations (idempotent; shared with the state store). */
  async migrate(): Promise<void> {
    const settings = { policy: this.retry, classify: transientPostgresCondition };
    await retryTransient('migrate the usage table', () => runMigrations(this.pool, this.schema), settings);
  }

  async record(records: UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    const { text, values } = this.insertStatement(records);
    await this.query('record usage', text, values);
  }

  /** One INSERT of every record, idempotent by (session, record key). */
  private insertStatement(records: UsageRecord[]): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const rows = records.map((record, index) => {
      values.push(
        record.id,
        record.sessionId,
        record.runId,
        record.kind,
        record.name,
        record.step,
        record.inputTokens ?? 0,
        record.outputTokens ?? 0,
        record.totalTokens ?? 0,
        record.durationMs ?? null,
        record.success,
        record.createdAt,
        record.rootSessionId ?? null,
      );
      const base = index * 13;
      return `(${Array.from({ length: 13 }, (_, offset) => `$${base + offset + 1}`).join(', ')})`;
    });
    return {
      text: `INSERT INTO ${this.table} (record_key, session_id, run_id, kind, name, step, input_tokens, output_tokens, total_tokens, duration_ms, success, created_at, root_session_id)
       VALUES ${rows.join(', ')} ON CONFLICT (session_id, record_key) DO NOTHING`,
      values,
    };
  }

  async getSessionUsage(sessionId: string): Promise<UsageSummary> {
    return this.summarize('session_id = $1', [sessionId]);
  }

  async getRunUsage(sessionId: string, runId: string): Promise<UsageSummary> {
    return this.summarize('session_id = $1 AND run_id = $2', [sessionId, runId]);
  }

  async getTreeUsage(rootSessionId: string): Promise<UsageSummary> {
    return this.summarize('(root_session_id = $1 OR (session_id = $1 AND root_session_id IS NULL))', [rootSessionId]);
  }

  async listRecords(sessionId: string, options?: { runId?: string }): Promise<UsageRecord[]> {
    const filter = options?.runId === undefined ? 'session_id = $1' : 'session_id = $1 AND run_id = $2';
    const parameters = options?.runId === undefined ? [sessionId] : [sessionId, options.runId];
    const { rows } = await this.query<UsageRow>(
      'list usage records',
      `SELECT record_key, session_id, run_id, kind, name, step, input_tokens, output_tokens, total_tokens, duration_ms, success, created_at, root_session_id
       FROM ${this.table} WHERE ${filter} AND record_key IS NOT NULL ORDER BY id`,
      parameters,
    );
    return rows.map((row) => ({
      id: row.record_key,
      sessionId: row.session_id,
      runId: row.run_id,
      kind: row.kind,
      name: row.name,
      step: row.step ?? 0,
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      totalTokens: row.total_tokens,
      ...(row.duration_ms === null ? {} : { durationMs: row.duration_ms }),
      success: row.success,
      createdAt: Number(row.created_at),
      ...(row.root_session_id === null ? {} : { rootSessionId: row.root_session_id }),
    }));
  }

  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }

  private async summarize(filter: string, parameters: unknown[]): Promise<UsageSummary> {
    const { rows } = await this.query<Record<keyof UsageSummary, string | null>>(
      'summarize usage',
      `SELECT
         count(*) FILTER (WHERE kind = 'llm') AS "llmCalls",
         coalesce(sum(input_tokens) FILTER (WHERE kind = 'llm'), 0) AS "inputTokens",
         coalesce(sum(output_tokens) FILTER (WHERE kind = 'llm'), 0) AS "outputTokens",
         coalesce(sum(total_tokens) FILTER (WHERE kind = 'llm'), 0) AS "totalTokens",
         count(*) FILTER (WHERE kind = 'tool') AS "toolCalls",
         count(*) FILTER (WHERE kind = 'tool' AND NOT success) AS "toolFailures",
         coalesce(sum(duration_ms) FILTER (WHERE kind = 'tool'), 0) AS "toolDurationMs"
       FROM ${this.table} WHERE ${filter}`,
      parameters,
    );
    const row = rows[0];
    if (row === undefined) return { ...EMPTY_USAGE_SUMMARY };
    return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value ?? 0)])) as unknown as UsageSummary;
  }

  private query<R extends pg.QueryResultRow>(operation: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return runPostgresOperation(operation, () => this.pool.query<R>(text, values), { retry: this.retry });
  }
}
