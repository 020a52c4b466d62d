/**
 * An epoch-ms time as `YYYY-MM-DD HH:MM:SS` in UTC; `-` when absent.
 *
 * @example
 * formatTime(Date.UTC(2025, 0, 31, 12, 0, 5)); // '2025-01-31 12:00:05'
 */
export function formatTime(epochMs: number | undefined): string {
  if (epochMs === undefined || !Number.isFinite(epochMs)) return '-';
  return new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * How long ago `epochMs` was, relative to `now`: `45s`, `12m`, `3h`, `5d` (`-` when absent).
 *
 * @example
 * formatAge(1_000, 61_000); // '1m'
 */
export function formatAge(epochMs: number | undefined, now: number): string {
  if (epochMs === undefined || !Number.isFinite(epochMs)) return '-';
  const seconds = Math.max(0, Math.floor((now - epochMs) / 1_000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3_600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3_600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/**
 * A value on one line for a table cell: strings as they are, anything else as compact JSON (`-` when absent).
 *
 * @example
 * inlineValue({ amount: 5 }); // '{"amount":5}'
 */
export function inlineValue(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '-';
  } catch {
    return '[unserializable]';
  }
}
