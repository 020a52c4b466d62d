/** Epoch ms at which each model call of a session started, in order (a step's start: most steps have no DBOS row). */
const modelCallStarts = new Map<string, number[]>();

/**
 * The start times (epoch ms) of a session's model calls through `createBenchModel`, forgotten once taken.
 *
 * @example
 * const [first, second] = takeModelCallStarts('bench-1');
 */
export function takeModelCallStarts(sessionId: string): number[] {
  const starts = modelCallStarts.get(sessionId) ?? [];
  modelCallStarts.delete(sessionId);
  return starts;
}

/**
 * Note that a session's model call starts now (the scripted model calls it; it returns nothing, so a script can
 * `noteModelCall(id) ?? answer`).
 *
 * @example
 * noteModelCall('bench-1');
 */
export function noteModelCall(sessionId: string | undefined): undefined {
  if (sessionId === undefined) return undefined;
  const starts = modelCallStarts.get(sessionId) ?? [];
  starts.push(Date.now());
  modelCallStarts.set(sessionId, starts);
  return undefined;
}

