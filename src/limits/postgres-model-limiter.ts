import pg from 'pg';
import { quoteIdentifier } from '../database/sql-identifier.js';
import { runMigrations } from '../store/index.js';
import { decidePermit, validatedModelLimits, type LimitUsage, type ModelLimit, type ModelLimiter, type ModelPermit, type PermitAnswer } from './model-limits.js';

/** Advisory-lock key space of the per-model-key lock. */
const MODEL_LOCK_KEYSPACE = 0x48_4c_4d; // 'HLM'
/** How long a permit stays counted as in flight when its holder never releases it (a crashed process). */
const DEFAULT_PERMIT_LEASE_MS = 10 * 60_000;

/**
 * Options of {@link PostgresModelLimiter}.
 *
 * @example
 * const options: PostgresModelLimiterOptions = { connectionString, limits: { 'openai:gpt-4o': { concurrency: 8 } } };
 */
export type PostgresModelLimiterOptions = ({ connectionString: string } | { pool: pg.Pool }) & {
  /** Limits by model key (`provider:modelId`, as the adapter's `modelKey` names it). Keys not listed are not limited. */
  limits: Record<string, ModelLimit>;
  /** Postgres schema of the `__agents_*` tables. Default 'public'. */
  schema?: string;
  /** How long an unreleased permit counts as in flight (default 600 000 ms). */
  permitLeaseMs?: number;
};

/**
 * Model limits that hold across every process on one Postgres: each grant takes the model key's advisory lock, counts
 * the in-flight permits and the sliding-period requests and tokens in `__agents_model_calls`, and records the permit
 * in the same transaction, so no two processes can both take the last slot. Run `migrate()` (or the state store's) once.
 *
 * @example
 * const modelLimiter = new PostgresModelLimiter({ connectionString, limits: { 'openai:gpt-4o': { concurrency: 8, requests: { limit: 500, periodMs: 60_000 } } } });
 * await modelLimiter.migrate();
 * const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, modelLimiter });
 */
export class PostgresModelLimiter implements ModelLimiter {
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly schema: string;
  private readonly table: string;
  private readonly limits: ReadonlyMap<string, ModelLimit>;
  private readonly leaseMs: number;

  constructor(options: PostgresModelLimiterOptions) {
    this.limits = validatedModelLimits(options.limits);
    this.ownsPool = 'connectionString' in options;
    this.pool = 'connectionString' in options ? new pg.Pool({ connectionString: options.connectionString, max: 4 }) : options.pool;
    if (this.ownsPool) this.pool.on('error', () => undefined);
    this.schema = options.schema ?? 'public';
    this.table = `${quoteIdentifier(this.schema)}.__agents_model_calls`;
    this.leaseMs = options.permitLeaseMs ?? DEFAULT_PERMIT_LEASE_MS;
  }

  /** Apply the package's migrations to this limiter's schema (idempotent). */
  async migrate(): Promise<void> {
    await runMigrations(this.pool, this.schema);
  }

  limitOf(modelKey: string): ModelLimit | undefined {
    return this.limits.get(modelKey) ?? this.limits.get('*');
  }

  async tryAcquire(request: { modelKey: string; holder: string; estimatedTokens: number }): Promise<PermitAnswer> {
    const limit = this.limitOf(request.modelKey);
    const permit: ModelPermit = { modelKey: request.modelKey, holder: request.holder };
    if (limit === undefined) return { granted: true, permit };
    const periodMs = Math.max(limit.requests?.periodMs ?? 0, limit.tokens?.periodMs ?? 0);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [MODEL_LOCK_KEYSPACE, request.modelKey]);
      await client.query(
        `DELETE FROM ${this.table} WHERE model_key = $1 AND granted_at < clock_timestamp() - make_interval(secs => $2::double precision / 1000)
           AND (released_at IS NOT NULL OR expires_at < clock_timestamp())`,
        [request.modelKey, periodMs],
      );
      const usage = await this.usageOf(client, request.modelKey, limit);
      const decision = decidePermit(limit, usage, request.estimatedTokens);
      if (!decision.grant) {
        await client.query('COMMIT');
        return { granted: false, waitMs: decision.waitMs, reason: decision.reason };
      }
      await client.query(
        `INSERT INTO ${this.table} (model_key, holder, expires_at, tokens)
         VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3::double precision / 1000), $4)
         ON CONFLICT (model_key, holder) DO NOTHING`,
        [request.modelKey, request.holder, this.leaseMs, Math.min(request.estimatedTokens, limit.tokens?.limit ?? request.estimatedTokens)],
      );
      await client.query('COMMIT');
      return { granted: true, permit };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async release(permit: ModelPermit, usedTokens: number | undefined): Promise<void> {
    if (this.limitOf(permit.modelKey) === undefined) return;
    await this.pool.query(`UPDATE ${this.table} SET released_at = clock_timestamp(), tokens = COALESCE($3, tokens) WHERE model_key = $1 AND holder = $2`, [
      permit.modelKey,
      permit.holder,
      usedTokens ?? null,
    ]);
  }

  async releaseExecutor(executorId: string): Promise<number> {
    const result = await this.pool.query(
      `UPDATE ${this.table} SET released_at = clock_timestamp() WHERE released_at IS NULL AND left(holder, length($1) + 1) = $1 || '|'`,
      [executorId],
    );
    return result.rowCount ?? 0;
  }

  /** Close the limiter's own pool (a pool passed in is the caller's to close). */
  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }

  private async usageOf(client: pg.PoolClient, modelKey: string, limit: ModelLimit): Promise<LimitUsage> {
    const { rows } = await client.query<Record<keyof LimitUsage, string | null>>(
      `WITH now AS (SELECT clock_timestamp() AS at)
       SELECT extract(epoch FROM now.at) * 1000 AS now,
         count(*) FILTER (WHERE released_at IS NULL AND expires_at > now.at) AS active,
         count(*) FILTER (WHERE granted_at > now.at - make_interval(secs => $2::double precision / 1000)) AS requests,
         coalesce(sum(tokens) FILTER (WHERE granted_at > now.at - make_interval(secs => $3::double precision / 1000)), 0) AS tokens,
         extract(epoch FROM min(granted_at) FILTER (WHERE granted_at > now.at - make_interval(secs => $2::double precision / 1000))) * 1000 AS "oldestRequestAt",
         extract(epoch FROM min(granted_at) FILTER (WHERE granted_at > now.at - make_interval(secs => $3::double precision / 1000))) * 1000 AS "oldestTokenAt",
         extract(epoch FROM min(expires_at) FILTER (WHERE released_at IS NULL AND expires_at > now.at)) * 1000 AS "nextExpiryAt"
       FROM now LEFT JOIN ${this.table} ON model_key = $1 GROUP BY now.at`,
      [modelKey, limit.requests?.periodMs ?? 0, limit.tokens?.periodMs ?? 0],
    );
    const row = rows[0];
    const number = (value: string | null | undefined) => (value === null || value === undefined ? null : Number(value));
    return {
      now: number(row?.now) ?? Date.now(),
      active: number(row?.active) ?? 0,
      requests: number(row?.requests) ?? 0,
      tokens: number(row?.tokens) ?? 0,
      oldestRequestAt: number(row?.oldestRequestAt),
      oldestTokenAt: number(row?.oldestTokenAt),
      nextExpiryAt: number(row?.nextExpiryAt),
    };
  }
}
