import { CliNotConfiguredError, CliUsageError } from './cli-errors.js';

/**
 * Where the CLI's commands go: straight to the database (`DATABASE_URL`), or through an AgentServer.
 *
 * @example
 * const target: ConnectionTarget = { mode: 'server', url: 'http://127.0.0.1:3000', token: 't', consolePath: '/console' };
 */
export type ConnectionTarget =
  | {
      mode: 'direct';
      /** The state store's and stream manager's Postgres. */
      databaseUrl: string;
      /** DBOS's system database (`DBOS_SYSTEM_DATABASE_URL`, else `databaseUrl`). */
      systemDatabaseUrl: string;
      /** The schema of the `__agents_*` tables (`--schema` / `HELIX_SCHEMA`). */
      schema?: string;
    }
  | {
      mode: 'server';
      url: string;
      token?: string;
      /** Where the server's console API is mounted (`--console-path` / `HELIX_CONSOLE_PATH`, default `/console`). */
      consolePath: string;
    };

/**
 * The global connection options as parsed from the command line.
 *
 * @example
 * const options: ConnectionOptions = { server: 'http://127.0.0.1:3000', token: 't' };
 */
export interface ConnectionOptions {
  server?: string;
  token?: string;
  direct?: boolean;
  schema?: string;
  consolePath?: string;
}

/**
 * Decide the connection (pure): `--direct` → the database; `--server` → that server; else `HELIX_SERVER_URL` → that
 * server; else `DATABASE_URL` → the database. `--token` and `--console-path` belong to server mode and `--schema` to
 * direct mode: each is refused in the other instead of being ignored.
 *
 * @throws CliNotConfiguredError `CLI_NOT_CONFIGURED` with neither a database nor a server.
 * @throws CliUsageError `CLI_USAGE` for `--direct` with `--server`, a server URL that is not http(s), or an option of the other mode.
 * @example
 * resolveTarget({}, { DATABASE_URL: 'postgres://localhost/app' }); // { mode: 'direct', databaseUrl: …, systemDatabaseUrl: … }
 */
export function resolveTarget(options: ConnectionOptions, env: Readonly<Record<string, string | undefined>>): ConnectionTarget {
  if (options.direct === true && options.server !== undefined) throw new CliUsageError('--direct and --server exclude each other.');
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  const serverUrl = options.direct === true ? undefined : (options.server ?? nonEmpty(env.HELIX_SERVER_URL));
  if (serverUrl !== undefined) {
    if (options.schema !== undefined) throw new CliUsageError('--schema applies to direct mode (DATABASE_URL) only; the AgentServer knows its own schema.');
    const token = options.token ?? nonEmpty(env.HELIX_TOKEN);
    const consolePath = consolePathOf(options.consolePath ?? nonEmpty(env.HELIX_CONSOLE_PATH) ?? '/console');
    return { mode: 'server', url: serverUrlOf(serverUrl), ...(token === undefined ? {} : { token }), consolePath };
  }
  if (options.token !== undefined) throw new CliUsageError('--token applies to server mode only: pass --server URL (or set HELIX_SERVER_URL) too.');
  if (options.consolePath !== undefined) throw new CliUsageError('--console-path applies to server mode only: pass --server URL (or set HELIX_SERVER_URL) too.');
  if (databaseUrl === undefined) throw new CliNotConfiguredError();
  const schema = options.schema ?? nonEmpty(env.HELIX_SCHEMA);
  return {
    mode: 'direct',
    databaseUrl,
    systemDatabaseUrl: nonEmpty(env.DBOS_SYSTEM_DATABASE_URL) ?? databaseUrl,
    ...(schema === undefined ? {} : { schema }),
  };
}

/**
 * A server URL checked to be http(s) without credentials, without a trailing slash (its path, e.g. a `basePath`, is kept).
 *
 * @throws CliUsageError `CLI_USAGE` otherwise (the message does not repeat the value, which may hold credentials).
 * @example
 * serverUrlOf('http://127.0.0.1:3000/agents/'); // 'http://127.0.0.1:3000/agents'
 */
export function serverUrlOf(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliUsageError('The server URL (--server / HELIX_SERVER_URL) must be an absolute http(s) URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliUsageError('The server URL (--server / HELIX_SERVER_URL) must be an absolute http(s) URL.');
  if (url.username !== '' || url.password !== '') throw new CliUsageError('The server URL (--server / HELIX_SERVER_URL) must not carry credentials: pass the token with --token / HELIX_TOKEN.');
  return url.toString().replace(/\/+$/, '');
}

/**
 * The console API's mount path: `/` and path segments of `[A-Za-z0-9._~-]`, without a trailing `/`.
 *
 * @throws CliUsageError `CLI_USAGE` otherwise.
 * @example
 * consolePathOf('/admin/console/'); // '/admin/console'
 */
export function consolePathOf(text: string): string {
  const path = text.replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) throw new CliUsageError('--console-path must be a path such as /console (segments of letters, digits, . _ ~ -).');
  return path;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
