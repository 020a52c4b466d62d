import { describe, expect, it } from 'vitest';
import { InMemoryStreamManager, reclaimStream } from '../../../src/stream/index.js';
import type { StreamChunkInput } from '../../../src/types/stream.js';
import { readStream } from '../../support/read-stream.js';

const text = (delta: string): StreamChunkInput => ({ type: 'text_delta', delta, agentId: 's', agentType: 'assistant', step: 1, timestamp: 1 });

async function streamWith(streams: InMemoryStreamManager, id: string, deltas: string[]): Promise<void> {
  const writer = await streams.createWriter(id, 's', 'assistant');
  for (const delta of deltas) await writer.write(text(delta));
  await writer.close();
}

describe('reclaimStream (a session created fresh under an id with a stream left behind)', () => {
  it.each([
    ['ended', 'ended'],
    ['failed', 'failed'],
    ['active with chunks', 'active'],
  ] as const)('empties a stream left %s and sets it active; sequences continue', async (_label, status) => {
    const streams = new InMemoryStreamManager();
    await streamWith(streams, 'old', ['a', 'b']);
    if (status === 'ended') await streams.endStream('old', 'output');
    if (status === 'failed') await streams.failStream('old', 'error');
    await reclaimStream(streams, 'old');
    const info = await streams.getInfo('old');
    expect(info).toMatchObject({ status: 'active', lastSequence: 2, chunkCount: 0 });
    expect(info?.output).toBeUndefined();
    expect(info?.error).toBeUndefined();
    await streamWith(streams, 'old', ['new']);
    await streams.endStream('old');
    expect(await readStream(streams, 'old')).toMatchObject([{ sequence: 3, delta: 'new' }]);
  });

  it('leaves an unknown stream unknown and an active empty one as it is', async () => {
    const streams = new InMemoryStreamManager();
    await reclaimStream(streams, 'unknown');
    expect(await streams.getInfo('unknown')).toBeNull();
    await streamWith(streams, 'empty', []);
    const before = await streams.getInfo('empty');
    await reclaimStream(streams, 'empty');
    expect(await streams.getInfo('empty')).toEqual(before);
  });
});
