import { expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../errors/index.js';
import type { StreamManager } from '../../../stream/stream-manager.js';
import { PROMPT_WAKE_MS, collect, deltaOf, newStreamId, textChunk, within } from './helpers.js';

/**
 * Register the contract tests for chunk identity (idempotent appends) and stream ids: a keyed chunk is
 * stored once whoever repeats it, cleanup forgets the keys it deletes, and ids of up to 1,024 bytes work
 * while longer, empty or control-character ids are refused before anything is written.
 *
 * @example
 * describe('my manager', () => defineStreamIdentityContract(() => createManager()));
 */
export function defineStreamIdentityContract(create: () => Promise<StreamManager>): void {
  it('stores a keyed chunk once, whichever writer repeats it (same batch, later batch, another writer)', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(textChunk(1, 'before'));
    await writer.write({ ...textChunk(1, 'tool-start'), type: 'text_delta' }, { key: 'run-1:1:tool_start:call-1' });
    await writer.write(textChunk(1, 'tool-start again, same batch'), { key: 'run-1:1:tool_start:call-1' });
    await writer.flush();
    await writer.write(textChunk(1, 'tool-start again, next batch'), { key: 'run-1:1:tool_start:call-1' });
    await writer.write(textChunk(1, 'after'));
    await writer.close();
    const replayed = await streams.createWriter(id, 'agent-1', 'assistant'); // e.g. the step re-run after a crash
    await replayed.write(textChunk(1, 'tool-start from the re-run'), { key: 'run-1:1:tool_start:call-1' });
    await replayed.write(textChunk(1, 'other call'), { key: 'run-1:1:tool_start:call-2' });
    await replayed.close();
    await streams.endStream(id);
    const chunks = await collect(await streams.createReader(id));
    expect(chunks.map((chunk) => [chunk.sequence, deltaOf(chunk)])).toEqual([
      [1, 'before'],
      [2, 'tool-start'],
      [3, 'after'],
      [4, 'other call'],
    ]);
    expect(await streams.getInfo(id)).toMatchObject({ lastSequence: 4, chunkCount: 4 });
  });

  it('cleanupToStep forgets the keys of the chunks it deletes, so a retried step writes them again', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(textChunk(1, 'kept'), { key: 'step-1' });
    await writer.write(textChunk(2, 'partial'), { key: 'step-2' });
    await writer.flush();
    await streams.cleanupToStep(id, 1);
    await writer.write(textChunk(1, 'kept again?'), { key: 'step-1' });
    await writer.write(textChunk(2, 'retried'), { key: 'step-2' });
    await writer.close();
    await streams.endStream(id);
    const chunks = await collect(await streams.createReader(id));
    expect(chunks.map((chunk) => [chunk.sequence, deltaOf(chunk)])).toEqual([
      [1, 'kept'],
      [3, 'retried'],
    ]);
  });

  it('works with a 1,024-byte stream id: write, live read, info, cleanup, end, reactivate', async () => {
    const streams = await create();
    const prefix = `${newStreamId()}-${'é'.repeat(256)}`; // multi-byte characters: bytes, not characters, count
    const padded = prefix + 'x'.repeat(1_024 - Buffer.byteLength(prefix));
    expect(Buffer.byteLength(padded)).toBe(1_024);
    const iterator = (await streams.createReader(padded))[Symbol.asyncIterator]();
    const pending = iterator.next();
    const writer = await streams.createWriter(padded, 'agent-1', 'assistant');
    await writer.write(textChunk(1, 'long id'), { key: 'only-once' });
    await writer.write(textChunk(1, 'repeat'), { key: 'only-once' });
    await writer.write(textChunk(2, 'later step'));
    await writer.flush();
    expect((await within(pending, 'the first chunk of a 1,024-byte stream', PROMPT_WAKE_MS)).value).toMatchObject({ sequence: 1, delta: 'long id' });
    await streams.cleanupToStep(padded, 1);
    expect(await streams.getInfo(padded)).toMatchObject({ streamId: padded, status: 'active', lastSequence: 2, chunkCount: 1 });
    await streams.endStream(padded, 'done');
    await collect(iterator); // the live reader may or may not have seen step 2 before the cleanup
    expect((await collect(await streams.createReader(padded))).map(deltaOf)).toEqual(['long id']);
    await streams.reactivateStream(padded);
    await streams.failStream(padded, 'second run failed');
    expect(await streams.getInfo(padded)).toMatchObject({ status: 'failed', lastSequence: 2 });
  });

  it('refuses longer, empty and control-character stream ids with InvalidArgumentError that does not echo the id', async () => {
    const streams = await create();
    const tooLong = `secret-${'a'.repeat(1_018)}`; // 1,025 bytes
    for (const bad of [tooLong, '', 'with\u0000nul', 'line\nbreak']) {
      const attempts: (() => Promise<unknown>)[] = [
        () => streams.createWriter(bad, 'agent-1', 'assistant'),
        () => streams.createReader(bad),
        () => streams.endStream(bad),
        () => streams.getInfo(bad),
      ];
      for (const attempt of attempts) {
        const failure = await attempt().catch((error: unknown) => error);
        expect(InvalidArgumentError.isInstance(failure)).toBe(true);
        if (bad.length > 0) expect(JSON.stringify({ message: (failure as Error).message, data: (failure as InvalidArgumentError).data })).not.toContain(bad);
      }
    }
    expect(await streams.getInfo(tooLong.slice(0, 1_024))).toBeNull();
  });
}
