import { readFileSync } from 'node:fs';
import pg from 'pg';

/** Linux reports process times in USER_HZ ticks, 100 per second on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, ms) of each Postgres backend connected to one database, by pid; empty when the server's
 * processes are not readable here (another machine, not Linux).
 *
 * @example
 * const before: BackendCpu = await readBackendCpu(sibling.url);
 */
export type BackendCpu = Map<number, number>;

/** utime + stime of `pid` from /proc, in ms; undefined when the process is gone or not visible. */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start at state; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Read the CPU time of every backend of `databaseUrl`'s database now (this probe's own backend left out).
 *
 * @example
 * const before = await readBackendCpu(url);
 */
export async function readBackendCpu(databaseUrl: string): Promise<BackendCpu> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    const cpu: BackendCpu = new Map();
    for (const { pid } of rows) {
      const ms = processCpuMs(pid);
      if (ms !== undefined) cpu.set(pid, ms);
    }
    return cpu;
  } finally {
    await client.end();
  }
}

/**
 * CPU time the backends spent between two reads, in ms (a backend that connected in between counts from zero; one
 * that disconnected in between is lost); undefined when no backend was readable.
 *
 * @example
 * backendCpuMs(before, await readBackendCpu(url)); // 2130
 */
export function backendCpuMs(before: BackendCpu, after: BackendCpu): number | undefined {
  if (after.size === 0) return undefined;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
