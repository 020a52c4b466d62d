import pg from 'pg';
import { quoteIdentifier } from '../database/sql-identifier.js';

/** Advisory-lock key space of fleet leases (the first of the two-int lock key). */
const LEASE_KEYSPACE = 0x48_4c_46; // 'HLF'
/** Advisory-lock key that serialises the members table's creation. */
const SCHEMA_LOCK = 0;

/**
 * A fleet member's connection to DBOS's system database: the session advisory locks that are the members' leases
 * (held while the process lives: Postgres releases them when its connection dies) and the members table.
 *
 * @example
 * const lease = await FleetLease.connect(systemDatabaseUrl, 'helix_fleet');
 * if (await lease.tryLock('worker-1')) await lease.register('worker-1', 'v1');
 */
export class FleetLease {
  readonly #client: pg.Client;
  readonly #table: string;
  #lost = false;
  #onLost: (() => void) | undefined;

  private constructor(client: pg.Client, table: string) {
    this.#client = client;
    this.#table = table;
    client.on('error', () => this.#lose());
    client.on('end', () => this.#lose());
  }

  /** Call `listener` once when the connection fails or ends on its own (not at {@link close}): its locks are gone. */
  onLost(listener: () => void): void {
    this.#onLost = listener;
  }

  #lose(): void {
    if (this.#lost) return; // also after close(), which marks the lease lost before it ends the connection
    this.#lost = true;
    this.#onLost?.();
  }

  /** Connect, and create the members table (once per database, serialised across processes). */
  static async connect(connectionString: string, schemaName: string): Promise<FleetLease> {
    const client = new pg.Client({ connectionString, application_name: 'helix-fleet' });
    await client.connect();
    const lease = new FleetLease(client, `${quoteIdentifier(schemaName)}.members`);
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [LEASE_KEYSPACE, SCHEMA_LOCK]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schemaName)}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${lease.#table} (executor_id text PRIMARY KEY, application_version text, joined_at timestamptz NOT NULL DEFAULT now())`,
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
      throw error;
    }
    return lease;
  }

  /** True once the connection failed or ended: its locks are gone (reconnect and lock again). */
  get lost(): boolean {
    return this.#lost;
  }

  /** Take `executorId`'s lease if no live connection holds it. */
  async tryLock(executorId: string): Promise<boolean> {
    const { rows } = await this.#client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::int, hashtext($2)) AS locked', [LEASE_KEYSPACE, executorId]);
    return rows[0]?.locked === true;
  }

  /** Release a lease this connection holds. */
  async unlock(executorId: string): Promise<void> {
    await this.#client.query('SELECT pg_advisory_unlock($1::int, hashtext($2))', [LEASE_KEYSPACE, executorId]);
  }

  /** Record `executorId` as a member (the sweepers of the others watch its lease from now on). */
  async register(executorId: string, applicationVersion: string | undefined): Promise<void> {
    await this.#client.query(
      `INSERT INTO ${this.#table} (executor_id, application_version) VALUES ($1, $2)
       ON CONFLICT (executor_id) DO UPDATE SET application_version = EXCLUDED.application_version, joined_at = now()`,
      [executorId, applicationVersion ?? null],
    );
  }

  /** Forget a member (a dead one whose runs were all taken over). */
  async forget(executorId: string): Promise<void> {
    await this.#client.query(`DELETE FROM ${this.#table} WHERE executor_id = $1`, [executorId]);
  }

  /** Every member but `executorId`. */
  async others(executorId: string): Promise<string[]> {
    const { rows } = await this.#client.query<{ executor_id: string }>(`SELECT executor_id FROM ${this.#table} WHERE executor_id <> $1 ORDER BY executor_id`, [executorId]);
    return rows.map((row) => row.executor_id);
  }

  /** Close the connection (its leases are released with it). */
  async close(): Promise<void> {
    this.#lost = true;
    await this.#client.end().catch(() => undefined);
  }
}
