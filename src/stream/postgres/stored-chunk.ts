import type { StreamChunk, StreamChunkInput } from '../../types/stream.js';

/**
 * A chunk as the Postgres stream manager stores it (migration 011): compact JSON text without what its row already
 * says — `sequence` and `step` (columns) and `agentId` when it is the stream's own id (the root agent writes into
 * its session's stream). About a third smaller than the chunk as jsonb. With `patchesIn` (migration 014), a
 * `state_patch` chunk is stored as a reference to that checkpoint of its agent, which holds its patches.
 *
 * @example
 * storedChunkText({ type: 'text_delta', delta: 'Hi', agentId: 's1', agentType: 'a', step: 1, timestamp: 0 }, 's1');
 * // '{"type":"text_delta","delta":"Hi","agentType":"a","timestamp":0}'
 */
export function storedChunkText(chunk: StreamChunkInput, streamId: string, patchesIn?: string): string {
  const { sequence: _sequence, step: _step, ...rest } = chunk as StreamChunkInput & { sequence?: number };
  const { agentId, ...others } = rest;
  const stored: Record<string, unknown> = agentId === streamId ? others : rest;
  if (patchesIn === undefined || chunk.type !== 'state_patch') return JSON.stringify(stored);
  // A reference: the first member marks it (readers look for the prefix), the patches stay in the checkpoint.
  const { patches: _patches, ...reference } = stored;
  return JSON.stringify({ [PATCHES_IN]: patchesIn, ...reference });
}

/** The member naming the checkpoint that holds a stored `state_patch` chunk's patches (always its first). */
const PATCHES_IN = 'patchesIn';

/**
 * How a stored chunk's text begins when it is a reference to its checkpoint's patches (see `storedChunkText`).
 *
 * @example
 * storedChunkText(chunk, 's1', 'run-1:2').startsWith(PATCHES_REFERENCE_PREFIX); // true for a state_patch chunk
 */
export const PATCHES_REFERENCE_PREFIX = `{"${PATCHES_IN}":`;

/**
 * The chunk back from its stored text (also a jsonb rendering of one stored before migration 011, which kept every
 * field): `agentId` and `step` taken from the row where the text leaves them out.
 *
 * @example
 * chunkFromStored('{"type":"text_delta","delta":"Hi"}', 's1', 1, 7); // { agentId: 's1', type: 'text_delta', delta: 'Hi', step: 1, sequence: 7 }
 * chunkFromStored('{"patchesIn":"run-1:2","type":"state_patch"}', 's1', 2, 8, '[]'); // patches from the checkpoint
 */
export function chunkFromStored(text: string, streamId: string, step: number, sequence: number, patches?: string | null): StreamChunk {
  const stored = JSON.parse(text) as Partial<StreamChunk> & { [PATCHES_IN]?: unknown };
  if (typeof stored[PATCHES_IN] === 'string' && stored.type === 'state_patch') {
    // A reference to its checkpoint's patches; none when that checkpoint is gone (its session was deleted).
    const { [PATCHES_IN]: _reference, ...chunk } = stored;
    return { agentId: streamId, ...chunk, patches: patches == null ? [] : JSON.parse(patches), step: stored.step ?? step, sequence } as StreamChunk;
  }
  return { agentId: streamId, ...stored, step: stored.step ?? step, sequence } as StreamChunk;
}
