import { expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../errors/index.js';
import type { StreamManager } from '../../../stream/stream-manager.js';
import { collect, deltaOf, newStreamId, textChunk } from './helpers.js';
import { badIds } from '../bad-ids.js';

/** The longest stream id (UTF-8 bytes). */
const MAX_STREAM_ID_BYTES = 1_024;
/** The longest agent id (a session id the runtime may have derived from a caller's, UTF-8 bytes). */
const MAX_AGENT_ID_BYTES = 2_048;

/** Every StreamManager method, called with a stream id and an agent id. */
const CALLS: ReadonlyArray<[string, 'streamId' | 'agentId', (streams: StreamManager, streamId: string, agentId: string) => Promise<unknown>]> = [
  ['createWriter', 'streamId', (streams, streamId, agentId) => streams.createWriter(streamId, agentId, 'assistant')],
  ['createWriter', 'agentId', (streams, streamId, agentId) => streams.createWriter(streamId, agentId, 'assistant')],
  ['createReader', 'streamId', (streams, streamId) => streams.createReader(streamId)],
  ['endStream', 'streamId', (streams, streamId) => streams.endStream(streamId, 'output')],
  ['failStream', 'streamId', (streams, streamId) => streams.failStream(streamId, 'error')],
  ['reactivateStream', 'streamId', (streams, streamId) => streams.reactivateStream(streamId)],
  ['pruneChunks', 'streamId', (streams, streamId) => streams.pruneChunks(streamId)],
  ['getInfo', 'streamId', (streams, streamId) => streams.getInfo(streamId)],
  ['cleanupToStep', 'streamId', (streams, streamId, agentId) => streams.cleanupToStep(streamId, 0, { agentId })],
  ['cleanupToStep', 'agentId', (streams, streamId, agentId) => streams.cleanupToStep(streamId, 0, { agentId })],
];

/**
 * Register the contract tests for ids at every method: an empty, NUL- or control-character, not well-formed or
 * over-long stream id (1,024 bytes of UTF-8 at most) or agent id (2,048 bytes at most) is refused with
 * InvalidArgumentError (`INVALID_ARGUMENT`) that does not echo it, and the stream it resembles stays as it was.
 *
 * @example
 * describe('my manager', () => defineStreamIdContract(() => createManager()));
 */
export function defineStreamIdContract(create: () => Promise<StreamManager>): void {
  it('every method refuses a bad stream id or agent id with INVALID_ARGUMENT; the stored stream stays as it was', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(textChunk(1, 'one'));
    await writer.write(textChunk(2, 'two'));
    await writer.close();
    await streams.endStream(id, 'done');
    const before = await streams.getInfo(id);
    const accepted: string[] = [];
    for (const [name, kind, call] of CALLS) {
      const good = kind === 'streamId' ? id : 'agent-1';
      for (const [label, bad] of badIds(good, kind === 'streamId' ? MAX_STREAM_ID_BYTES : MAX_AGENT_ID_BYTES)) {
        const failure = await call(streams, kind === 'streamId' ? bad : id, kind === 'agentId' ? bad : 'agent-1').then(
          () => undefined,
          (error: unknown) => error,
        );
        if (!InvalidArgumentError.isInstance(failure) || failure.code !== 'INVALID_ARGUMENT') accepted.push(`${name} with a ${label} ${kind}`);
        else if (bad.length > 0) expect(JSON.stringify({ message: failure.message, data: failure.data })).not.toContain(bad);
      }
    }
    expect(accepted).toEqual([]);
    expect(await streams.getInfo(id)).toEqual(before);
    expect((await collect(await streams.createReader(id))).map(deltaOf)).toEqual(['one', 'two']);
  });

  it('writes chunks of an agent id of 2,048 bytes', async () => {
    const streams = await create();
    const id = newStreamId();
    const agentId = `${id}-${'é'.repeat(300)}`.padEnd(MAX_AGENT_ID_BYTES - 300, 'x');
    expect(Buffer.byteLength(agentId)).toBe(MAX_AGENT_ID_BYTES);
    const writer = await streams.createWriter(id, agentId, 'child');
    await writer.write({ ...textChunk(1, 'long agent'), agentId, agentType: 'child' });
    await writer.close();
    await streams.cleanupToStep(id, 1, { agentId });
    await streams.endStream(id);
    expect(await collect(await streams.createReader(id))).toMatchObject([{ agentId, delta: 'long agent' }]);
  });
}
