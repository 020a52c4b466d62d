import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';

/**
 * The machine's CPU time counters (Linux `/proc/stat`, all cores, in clock ticks), `undefined` elsewhere.
 *
 * @example
 * const ticks: CpuTicks | undefined = readCpuTicks();
 */
export interface CpuTicks {
  busy: number;
  total: number;
}

/**
 * Read the machine-wide CPU counters now.
 *
 * @example
 * const before = readCpuTicks();
 */
export function readCpuTicks(): CpuTicks | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n').find((candidate) => candidate.startsWith('cpu '));
    if (line === undefined) return undefined;
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/**
 * The share of the machine's CPU time that was busy between two reads (0..1), `undefined` without counters.
 *
 * @example
 * busyShare(before, readCpuTicks()); // 0.97
 */
export function busyShare(before: CpuTicks | undefined, after: CpuTicks | undefined): number | undefined {
  if (before === undefined || after === undefined || after.total <= before.total) return undefined;
  return (after.busy - before.busy) / (after.total - before.total);
}

/**
 * One line on the machine: cores Node may use (what `nproc` reports), the CPU model and memory.
 *
 * @example
 * machineDescription(); // '2 cores (availableParallelism), Intel(R) Xeon(R) …, 8.0 GiB'
 */
export function machineDescription(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${availableParallelism()} cores (availableParallelism, as nproc), ${model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`;
}
