import type { DBOSConfig } from '@dbos-inc/dbos-sdk';
import { withIdleTransactionTimeout } from '../../src/store/postgres/session-timeouts.js';

/**
 * DBOS application name of the demo. `dbos-config.yaml` repeats it (`name:`) for `npx dbos start`.
 *
 * @example
 * DBOS.setConfig(demoDBOSConfig(databaseUrl)); // name: DEMO_APP_NAME
 */
export const DEMO_APP_NAME = 'helix-agents-demo';

/**
 * The pinned DBOS `applicationVersion` of the demo. DBOS recovers only workflows recorded under the same
 * version, so a restarted demo (the crash drill) finds its pending run. Bump it when a change to the workflow
 * or step code makes old pending runs unsafe to replay.
 *
 * @example
 * DBOS.setConfig({ name: DEMO_APP_NAME, systemDatabaseUrl, applicationVersion: DEMO_APPLICATION_VERSION });
 */
export const DEMO_APPLICATION_VERSION = 'helix-demo-1';

/**
 * The DBOS configuration of the demo. `DBOS.launch()` does not read `dbos-config.yaml`, so the demo sets
 * the same values itself; the agent tables and the DBOS system tables share one database. DBOS's
 * idle-in-transaction timeout (its default, 60 s) travels in the URL's libpq `options`, which spares every
 * new pool connection an extra `SET` (and pg's "client is already executing a query" warning).
 *
 * @example
 * DBOS.setConfig(demoDBOSConfig('postgres://postgres:postgres@127.0.0.1:5432/helix_demo'));
 * await DBOS.launch();
 */
export function demoDBOSConfig(databaseUrl: string): DBOSConfig {
  return { name: DEMO_APP_NAME, systemDatabaseUrl: withSessionTimeouts(databaseUrl), applicationVersion: DEMO_APPLICATION_VERSION, logLevel: 'warn' };
}

/**
 * `databaseUrl` with `idle_in_transaction_session_timeout=60000` in its libpq `options` (unless it has options).
 *
 * @example
 * withSessionTimeouts('postgres://u:p@h/db'); // 'postgres://u:p@h/db?options=-c+idle_in_transaction_session_timeout%3D60000'
 */
export function withSessionTimeouts(databaseUrl: string): string {
  return withIdleTransactionTimeout(databaseUrl);
}
