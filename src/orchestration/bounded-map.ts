/**
 * Set `key` in `map` as its newest entry (an existing key moves to the end), then drop the oldest entries beyond
 * `max`: the per-process caches keep their most recently written `max` entries. Pure (no I/O).
 *
 * @example
 * rememberNewest(cache, sessionId, entry, 256);
 */
export function rememberNewest<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= max) return;
    map.delete(oldest);
  }
}
