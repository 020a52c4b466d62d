import { InvalidArgumentError } from '../errors/index.js';
import { cloneJson } from '../database/json.js';
import type { StreamChunkInput } from '../types/stream.js';

/**
 * Check a chunk handed to a writer and fill in the writer's `agentId` / `agentType` when the chunk lacks
 * them; any `sequence` the caller set is dropped (the manager assigns it). Returns a deep JSON copy, so a
 * buffered chunk is what the caller wrote even if it mutates its objects later, and a chunk that cannot be
 * stored is refused here rather than failing (and being retried by) a later batch append.
 *
 * @throws InvalidArgumentError (`INVALID_ARGUMENT`) when `type` is not a string, `step` is not a
 *   non-negative integer, or the chunk is not JSON-serializable (a BigInt, a cycle).
 * @example
 * const ready = prepareChunk({ type: 'text_delta', delta: 'Hi', step: 1, timestamp: Date.now(), agentId: 'a', agentType: 't' }, 'a', 't');
 */
export function prepareChunk(chunk: StreamChunkInput, agentId: string, agentType: string): StreamChunkInput {
  if (typeof chunk !== 'object' || chunk === null || typeof chunk.type !== 'string') {
    throw new InvalidArgumentError('A stream chunk must be an object with a string `type`.');
  }
  if (!Number.isInteger(chunk.step) || chunk.step < 0 || chunk.step > 2_147_483_647) {
    throw new InvalidArgumentError('A stream chunk needs `step`, a non-negative integer.', { type: chunk.type });
  }
  const { sequence: _ignored, ...rest } = chunk as StreamChunkInput & { sequence?: unknown };
  const prepared = {
    ...rest,
    agentId: typeof chunk.agentId === 'string' ? chunk.agentId : agentId,
    agentType: typeof chunk.agentType === 'string' ? chunk.agentType : agentType,
    timestamp: typeof chunk.timestamp === 'number' ? chunk.timestamp : Date.now(),
  };
  return cloneJson(prepared, 'chunk');
}

