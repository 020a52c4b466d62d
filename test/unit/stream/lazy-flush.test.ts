import { describe, expect, it } from 'vitest';
import type { BufferedStreamWriter, ChunkAppendOptions, ChunkBatchSink } from '../../../src/stream/buffered-stream-writer.js';
import type { KeyedChunk } from '../../../src/stream/chunk-identity.js';
import type { StepRecordConnection } from '../../../src/types/step-records.js';
import type { StreamChunkInput } from '../../../src/types/stream.js';
import { testWriter } from '../../support/buffered-writer.js';

/** One append as the sink saw it: the deltas, in order, and how it was asked to append them. */
interface Append {
  deltas: string[];
  options: ChunkAppendOptions;
}

/** A sink that records its appends (and honours `lazy` when `lazily`). */
class RecordingSink implements ChunkBatchSink {
  readonly appends: Append[] = [];
  constructor(readonly appendsLazily: boolean) {}
  async append(_streamId: string, chunks: KeyedChunk[], options: ChunkAppendOptions = {}): Promise<void> {
    await Promise.resolve();
    const deltas = chunks.map((keyed) => (keyed.chunk.type === 'text_delta' ? keyed.chunk.delta : keyed.chunk.type));
    this.appends.push({ deltas, options });
  }
}

function chunk(delta: string): StreamChunkInput {
  return { type: 'text_delta', delta, agentId: 'agent-1', agentType: 'assistant', step: 1, timestamp: 1 };
}

/** A writer on `sink` (batches of 100, no timed flush) that wrote `a` and flushed it lazily. */
async function lazilyWroteA(sink: ChunkBatchSink): Promise<BufferedStreamWriter> {
  const subject = testWriter(sink, { batchSize: 100, flushIntervalMs: 60_000 });
  await subject.write(chunk('a'));
  await subject.flushLazily();
  return subject;
}

/** A hand-over's appends, as `appendOn` saw them: the deltas and how many leading ones were sent again. */
function recordingAppendOn(seen: Array<{ deltas: string[]; resent: number }>) {
  return async (_connection: unknown, _streamId: string, chunks: KeyedChunk[], resent: number): Promise<void> => {
    seen.push({ deltas: chunks.map((keyed) => (keyed.chunk.type === 'text_delta' ? keyed.chunk.delta : keyed.chunk.type)), resent });
  };
}

/** A connection the hand-overs above never use (their `appendOn` only records). */
const connection = {
  query: async () => ({ rows: [], rowCount: 1, command: 'INSERT', oid: 0, fields: [] }),
} as unknown as StepRecordConnection;

describe('BufferedStreamWriter.flushLazily', () => {
  it.each([
    { next: 'flush', expected: [{ deltas: ['a'], options: { lazy: true } }, { deltas: ['a', 'b'], options: { resent: 1 } }] },
    { next: 'close', expected: [{ deltas: ['a'], options: { lazy: true } }, { deltas: ['a', 'b'], options: { resent: 1 } }] },
  ])('appends lazily, and the next append that is not ($next) carries the lazy chunks again, once', async ({ next, expected }) => {
    const sink = new RecordingSink(true);
    const subject = await lazilyWroteA(sink);
    await subject.write(chunk('b'));
    await (next === 'flush' ? subject.flush() : subject.close());
    await subject.flush();
    expect(sink.appends).toEqual(expected);
  });

  it('a flush with nothing buffered still stores the lazy chunks for good (before a cleanup deletes rows after them)', async () => {
    const sink = new RecordingSink(true);
    const subject = await lazilyWroteA(sink);
    await subject.flush();
    await subject.flush();
    expect(sink.appends).toEqual([
      { deltas: ['a'], options: { lazy: true } },
      { deltas: ['a'], options: { resent: 1 } },
    ]);
  });

  it('a second lazy flush carries the first one’s chunks again and stays lazy', async () => {
    const sink = new RecordingSink(true);
    const subject = await lazilyWroteA(sink);
    await subject.write(chunk('b'));
    await subject.flushLazily();
    await subject.flush();
    expect(sink.appends).toEqual([
      { deltas: ['a'], options: { lazy: true } },
      { deltas: ['a', 'b'], options: { lazy: true, resent: 1 } },
      { deltas: ['a', 'b'], options: { resent: 2 } },
    ]);
  });

  it('is a plain flush on a sink that does not append lazily (nothing is carried again)', async () => {
    const sink = new RecordingSink(false);
    const subject = await lazilyWroteA(sink);
    await subject.write(chunk('b'));
    await subject.flush();
    expect(sink.appends).toEqual([
      { deltas: ['a'], options: {} },
      { deltas: ['b'], options: {} },
    ]);
  });

  it('a hand-over carries the lazy chunks first until its transaction commits; abandoned, only the new ones go back', async () => {
    const sink = new RecordingSink(true);
    const subject = await lazilyWroteA(sink);
    await subject.write(chunk('b'));
    const seen: Array<{ deltas: string[]; resent: number }> = [];
    const abandoned = await subject.handOver(recordingAppendOn(seen));
    await abandoned?.within(connection);
    abandoned?.abandoned();
    const handover = await subject.handOver(recordingAppendOn(seen));
    await handover?.within(connection);
    handover?.committed?.();
    expect(await subject.handOver(recordingAppendOn(seen)), 'nothing left to carry').toBeUndefined();
    expect(seen).toEqual([
      { deltas: ['a', 'b'], resent: 1 },
      { deltas: ['a', 'b'], resent: 1 },
    ]);
  });

  it('a hand-over with nothing buffered still carries the lazy chunks', async () => {
    const sink = new RecordingSink(true);
    const subject = await lazilyWroteA(sink);
    const seen: Array<{ deltas: string[]; resent: number }> = [];
    const handover = await subject.handOver(recordingAppendOn(seen));
    await handover?.within(connection);
    expect(seen).toEqual([{ deltas: ['a'], resent: 1 }]);
  });
});
