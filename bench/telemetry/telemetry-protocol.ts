import { LineProtocol } from '../bench-child.js';
import type { Emitted, TelemetryConfigurationName } from './telemetry-configurations.js';

/**
 * One measured run as the child saw it: wall ms per agent step (`execute()` → `result()` over every step, the answer
 * included), the child's CPU ms (user + system) per agent step over the same span, the median start-to-start interval
 * of its tool steps (from the model calls), what it emitted (zero everywhere but with tracing on) and the V8 heap after
 * the GC that preceded it.
 *
 * @example
 * const sample: TelemetryRunSample = { msPerStep: 8.1, cpuMsPerStep: 3.2, stepIntervalMs: 7.9, emitted, heapMb: 61.2 };
 */
export interface TelemetryRunSample {
  msPerStep: number;
  cpuMsPerStep: number;
  stepIntervalMs: number;
  emitted: Emitted;
  heapMb: number;
}

/**
 * What the parent asks a telemetry child (one line on its stdin): measure run `index` under `configuration` (one the
 * child hosts), or shut down and exit.
 *
 * @example
 * const command: TelemetryCommand = { type: 'run', configuration: 'tracing', index: 3 };
 */
export type TelemetryCommand = { type: 'run'; configuration: TelemetryConfigurationName; index: number } | { type: 'exit' };

/**
 * What a telemetry child answers (one line on its stdout, among whatever else it prints).
 *
 * @example
 * const reply: TelemetryReply = { type: 'ready' };
 */
export type TelemetryReply = { type: 'ready' } | { type: 'run'; sample: TelemetryRunSample };

/**
 * The line protocol between the telemetry bench and its children.
 *
 * @example
 * child.stdin.write(TELEMETRY_PROTOCOL.line({ type: 'exit' }));
 */
export const TELEMETRY_PROTOCOL = new LineProtocol<TelemetryCommand | TelemetryReply>('TELEMETRY_BENCH ');
