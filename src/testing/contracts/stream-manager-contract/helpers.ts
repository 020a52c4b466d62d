import { randomUUID } from 'node:crypto';
import type { StreamReader, StreamWriter } from '../../../stream/stream-manager.js';
import type { StreamChunk, TextDeltaChunk } from '../../../types/stream.js';

/**
 * Longest any stream contract test waits for a reader before failing, in ms.
 *
 * @example
 * await within(iterator.next(), 'a chunk', CONTRACT_WAIT_MS);
 */
export const CONTRACT_WAIT_MS = 10_000;

/**
 * How soon a waiting reader must notice a new chunk or the end of its stream, in ms: well above a
 * pushed wake-up's latency and a 1 s poll, below any "just wait for the next timeout" fallback.
 *
 * @example
 * await within(pending, 'the live chunk', PROMPT_WAKE_MS);
 */
export const PROMPT_WAKE_MS = 3_000;

/**
 * A random stream id, so contract tests can share one backend.
 *
 * @example
 * const id = newStreamId(); // 'contract-6f1c…'
 */
export function newStreamId(): string {
  return `contract-${randomUUID()}`;
}

/**
 * A `text_delta` chunk input for `step` (fixed timestamp, agent `agent-1`).
 *
 * @example
 * await writer.write(textChunk(1, 'Hello'));
 */
export function textChunk(step: number, delta: string): Omit<TextDeltaChunk, 'sequence'> {
  return { type: 'text_delta', delta, agentId: 'agent-1', agentType: 'assistant', step, timestamp: 1_700_000_000_000 };
}

/**
 * The text of a `text_delta` chunk, or `<type>` for other chunks.
 *
 * @example
 * expect(chunks.map(deltaOf)).toEqual(['a', 'b']);
 */
export function deltaOf(chunk: StreamChunk): string {
  return chunk.type === 'text_delta' ? chunk.delta : `<${chunk.type}>`;
}

/**
 * The integers `from..to`, inclusive.
 *
 * @example
 * range(1, 3); // [1, 2, 3]
 */
export function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

/**
 * Resolve after `milliseconds`.
 *
 * @example
 * await delay(20);
 */
export function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/**
 * Write `count` chunks (`${agentId}-${index}`) as `agentId`, flushing every 10 and yielding now and then.
 *
 * @example
 * await Promise.all([writeMany(parent, 'parent', 150), writeMany(child, 'child', 150)]);
 */
export async function writeMany(writer: StreamWriter, agentId: string, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    await writer.write({ ...textChunk(1, `${agentId}-${index}`), agentId });
    if (index % 10 === 9) await writer.flush();
    if (index % 7 === 0) await delay(1);
  }
}

/**
 * Resolve with `promise`, or fail the test after `milliseconds` naming what never arrived.
 *
 * @example
 * const first = await within(iterator.next(), 'the first chunk');
 */
export async function within<T>(promise: Promise<T>, what: string | (() => string), milliseconds = CONTRACT_WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const describeWait = (): string => (typeof what === 'string' ? what : what());
    timer = setTimeout(() => reject(new Error(`Timed out after ${milliseconds} ms waiting for ${describeWait()}`)), milliseconds);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Read until the reader completes (the stream ended or failed); fails after `milliseconds`.
 *
 * @example
 * const chunks = await collect(await streams.createReader(id));
 */
export async function collect(reader: StreamReader | AsyncIterator<StreamChunk>, milliseconds = CONTRACT_WAIT_MS): Promise<StreamChunk[]> {
  const iterator = Symbol.asyncIterator in reader ? reader[Symbol.asyncIterator]() : reader;
  const chunks: StreamChunk[] = [];
  const drain = async (): Promise<StreamChunk[]> => {
    for (;;) {
      const result = await iterator.next();
      if (result.done === true) return chunks;
      chunks.push(result.value);
    }
  };
  return within(drain(), () => `the stream to complete (got ${chunks.length} chunks so far)`, milliseconds);
}
