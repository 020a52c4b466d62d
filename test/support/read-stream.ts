import type { StreamManager } from '../../src/stream/stream-manager.js';
import type { StreamChunk } from '../../src/types/stream.js';

/**
 * Every chunk of a stream after `fromSequence`, read until the stream ends (the stream must end, or this waits).
 *
 * @example
 * const chunks = await readStream(runtime.streamManager, 's1');
 */
export async function readStream(streamManager: Pick<StreamManager, 'createReader'>, streamId: string, fromSequence = 0): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of await streamManager.createReader(streamId, fromSequence)) chunks.push(chunk);
  return chunks;
}
