/**
 * A session stream as a client sees it: read from sequence 0 to the end, applying `step_reset` (drop every
 * chunk of that agent's step seen so far). Bounded: a stream that never ends fails the read.
 */
import type { StreamManager } from '../../../src/stream/stream-manager.js';
import type { StreamChunk } from '../../../src/types/stream.js';

/**
 * The raw chunks read and the chunks left visible after step resets.
 *
 * @example
 * const { visible } = await readStreamWithResets(streamManager, 's1', 10_000);
 */
export interface StreamView {
  raw: StreamChunk[];
  visible: StreamChunk[];
}

/**
 * Read `streamId` from 0 until it ends, applying step_reset semantics.
 *
 * @example
 * const text = textOfStep((await readStreamWithResets(streams, 's1', 10_000)).visible, 2);
 */
export async function readStreamWithResets(streamManager: StreamManager, streamId: string, timeoutMs: number): Promise<StreamView> {
  const reader = await streamManager.createReader(streamId, 0);
  const raw: StreamChunk[] = [];
  let visible: StreamChunk[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void reader.close();
      reject(new Error(`timed out after ${timeoutMs} ms reading stream ${streamId} (did it end?); read ${raw.length} chunks`));
    }, timeoutMs);
  });
  const read = (async () => {
    for await (const chunk of reader) {
      raw.push(chunk);
      if (chunk.type === 'step_reset') {
        visible = visible.filter((seen) => !(seen.agentId === chunk.agentId && seen.step === chunk.step));
      } else {
        visible.push(chunk);
      }
    }
  })();
  try {
    await Promise.race([read, timedOut]);
  } finally {
    clearTimeout(timer);
    await reader.close();
  }
  return { raw, visible };
}

/**
 * The concatenated text deltas of one step.
 *
 * @example
 * textOfStep(visible, 2); // 'The answer is forty-two after a.'
 */
export function textOfStep(chunks: readonly StreamChunk[], step: number): string {
  return chunks
    .filter((chunk): chunk is Extract<StreamChunk, { type: 'text_delta' }> => chunk.type === 'text_delta' && chunk.step === step)
    .map((chunk) => chunk.delta)
    .join('');
}

/**
 * `type@step` of every chunk (tool chunks with their call id, text deltas with their text): a comparable outline.
 *
 * @example
 * outlineOf(visible); // ['tool_start@1:call_1_lookup_a', …, 'text_delta@2:The ', 'output@2']
 */
export function outlineOf(chunks: readonly StreamChunk[]): string[] {
  return chunks.map((chunk) => {
    const base = `${chunk.type}@${chunk.step}`;
    if (chunk.type === 'text_delta') return `${base}:${chunk.delta}`;
    if (chunk.type === 'tool_start' || chunk.type === 'tool_end') return `${base}:${chunk.toolCallId}`;
    return base;
  });
}
