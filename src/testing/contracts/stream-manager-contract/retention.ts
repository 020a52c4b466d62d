import { expect, it } from 'vitest';
import type { StreamManager } from '../../../stream/stream-manager.js';
import { collect, deltaOf, newStreamId, textChunk } from './helpers.js';

/**
 * Register the contract tests for retention (`pruneChunks`): an ended stream loses its chunks but keeps its record,
 * so a reactivated stream continues its sequence; an active or unknown stream is left alone.
 *
 * @example
 * describe('my manager', () => defineStreamRetentionContract(() => createManager()));
 */
export function defineStreamRetentionContract(create: () => Promise<StreamManager>): void {
  it('pruneChunks deletes the chunks of an ended stream, keeps its record, and never touches an active one', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    for (const delta of ['a', 'b', 'c']) await writer.write(textChunk(1, delta), { key: `retention-${delta}` });
    await writer.flush();
    expect(await streams.pruneChunks(id)).toBe(0); // active: a live run may still need it
    expect(await streams.pruneChunks(newStreamId())).toBe(0); // unknown
    await streams.endStream(id, { answer: 1 });
    expect(await streams.pruneChunks(id)).toBe(3);
    expect(await streams.pruneChunks(id)).toBe(0);
    expect(await collect(await streams.createReader(id))).toEqual([]);
    expect(await streams.getInfo(id)).toMatchObject({ status: 'ended', lastSequence: 3, output: { answer: 1 } });

    await streams.reactivateStream(id);
    const next = await streams.createWriter(id, 'agent-1', 'assistant');
    await next.write(textChunk(1, 'a'), { key: 'retention-a' }); // a pruned key may be written again
    await next.flush();
    await streams.endStream(id);
    const after = await collect(await streams.createReader(id));
    expect(after.map((chunk) => [chunk.sequence, deltaOf(chunk)])).toEqual([[4, 'a']]);
  });
}
