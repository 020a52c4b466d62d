/**
 * The Redis keys of one stream; they share a `{streamId}` hash tag so scripts work on Redis Cluster.
 *
 * @example
 * const { meta, chunks, control, ids }: RedisStreamKeys = redisStreamKeys('helix:stream:', 's1');
 */
export interface RedisStreamKeys {
  /** Hash: status, lastSequence, output (JSON), error, createdAt, updatedAt. */
  meta: string;
  /** Stream of chunks, entry id `<sequence>-0`, fields `s` (step) and `c` (chunk JSON). */
  chunks: string;
  /** Short stream bumped on end/fail/reactivate so blocked readers wake. */
  control: string;
  /** Hash of chunk identities: `w/<writerId>` → highest counter stored, `k/<key>` → sequence of a keyed chunk. */
  ids: string;
}

/**
 * Build the keys of `streamId` under `keyPrefix`.
 *
 * @example
 * redisStreamKeys('helix:stream:', 's1').chunks; // 'helix:stream:{s1}:chunks'
 */
export function redisStreamKeys(keyPrefix: string, streamId: string): RedisStreamKeys {
  const base = `${keyPrefix}{${streamId}}`;
  return { meta: `${base}:meta`, chunks: `${base}:chunks`, control: `${base}:control`, ids: `${base}:ids` };
}
