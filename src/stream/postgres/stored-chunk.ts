import type { StreamChunk, StreamChunkInput } from '../../types/stream.js';

/**
 * A chunk as the Postgres stream manager stores it (migration 011): compact JSON text without what its row already
 * says — `sequence` and `step` (columns) and `agentId` when it is the stream's own id (the root agent writes into
 * its session's stream). About a third smaller than the chunk as jsonb.
 *
 * @example
 * storedChunkText({ type: 'text_delta', delta: 'Hi', agentId: 's1', agentType: 'a', step: 1, timestamp: 0 }, 's1');
 * // '{"type":"text_delta","delta":"Hi","agentType":"a","timestamp":0}'
 */
export function storedChunkText(chunk: StreamChunkInput, streamId: string): string {
  const { sequence: _sequence, step: _step, ...rest } = chunk as StreamChunkInput & { sequence?: number };
  const { agentId, ...others } = rest;
  return JSON.stringify(agentId === streamId ? others : rest);
}

/**
 * The chunk back from its stored text (also a jsonb rendering of one stored before migration 011, which kept every
 * field): `agentId` and `step` taken from the row where the text leaves them out.
 *
 * @example
 * chunkFromStored('{"type":"text_delta","delta":"Hi"}', 's1', 1, 7); // { agentId: 's1', type: 'text_delta', delta: 'Hi', step: 1, sequence: 7 }
 */
export function chunkFromStored(text: string, streamId: string, step: number, sequence: number): StreamChunk {
  const stored = JSON.parse(text) as Partial<StreamChunk>;
  return { agentId: streamId, ...stored, step: stored.step ?? step, sequence } as StreamChunk;
}
