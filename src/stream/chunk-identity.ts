import { randomBytes } from 'node:crypto';
import { InvalidArgumentError } from '../errors/index.js';
import type { StreamChunkInput } from '../types/stream.js';

/**
 * A chunk ready to append with its identity in the stream: a caller's key (`k/<key>`) or the writer's own
 * (`w/<writerId>/<counter>`). Managers store each key once per stream and skip chunks whose key they hold.
 *
 * @example
 * const keyed: KeyedChunk = { key: 'w/Zq3x9LmPa0Qe/1', chunk };
 */
export interface KeyedChunk {
  key: string;
  chunk: StreamChunkInput;
  /** The checkpoint holding a `state_patch` chunk's patches (`StreamWriteOptions.patchesIn`). */
  patchesIn?: string;
}

/** The longest caller-supplied chunk key, in bytes of UTF-8 (keeps index entries small). */
export const MAX_CHUNK_KEY_BYTES = 512;

/**
 * Hands out the identities of one writer's chunks: a random writer id (72 bits) and a counter, so every
 * chunk the writer creates has a key no other chunk has, and a batch re-sent after a dropped connection
 * carries the same keys as the first attempt.
 *
 * @example
 * const identities = new ChunkIdentities();
 * identities.next();            // 'w/Zq3x9LmPa0Qe/1'
 * identities.next('tool-start'); // 'k/tool-start'
 */
export class ChunkIdentities {
  readonly #writerId = randomBytes(9).toString('base64url');
  #counter = 0;

  /** The key of the next chunk: the caller's `key` (validated) or the writer's next own key. */
  next(key?: string): string {
    if (key !== undefined) return callerKey(key);
    this.#counter += 1;
    return `w/${this.#writerId}/${this.#counter}`;
  }
}

/**
 * The stored form of a caller-supplied chunk key.
 *
 * @throws InvalidArgumentError when `key` is not a string of 1–512 bytes.
 * @example
 * callerKey('run-1:2:tool_start:call-7'); // 'k/run-1:2:tool_start:call-7'
 */
export function callerKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || Buffer.byteLength(key) > MAX_CHUNK_KEY_BYTES) {
    throw new InvalidArgumentError(`A chunk key must be a string of 1 to ${MAX_CHUNK_KEY_BYTES} bytes.`, { field: 'key' });
  }
  return `k/${key}`;
}

