import { expect } from 'vitest';
import type { ChunkHandover } from '../../../stream/step-records.js';
import type { StreamWriter } from '../../../stream/stream-manager.js';
import type { StepRecordConnection } from '../../../types/step-records.js';
import { collect, deltaOf, newStreamId, textChunk } from '../stream-manager-contract/helpers.js';
import type { StepRecordsContractCheck } from './check.js';
import { inTransaction, streamManagerOf, untouchableConnection, type StepRecordsContractSubject } from './subject.js';

/**
 * Write `deltas` (keyed chunks of step 1) and hand them over in the same tick, before a flush timer can store them on
 * their own.
 */
async function writeAndHandOver(subject: StepRecordsContractSubject, writer: StreamWriter, deltas: string[]): Promise<ChunkHandover | undefined> {
  const { stepRecords } = streamManagerOf(subject);
  const writes = deltas.map((delta) => writer.write(textChunk(1, delta), { key: `contract:${delta}` }));
  const handing = stepRecords.handOver(writer);
  await Promise.all(writes);
  return handing;
}

/** A tool call's two chunks, as the pair checks write them. */
const TOOL_CALL = { toolCallId: 'contract-call', toolName: 'lookup', agentId: 'agent-1', agentType: 'assistant', step: 1 };
const TOOL_START = { type: 'tool_start' as const, ...TOOL_CALL, arguments: { q: 'x' }, timestamp: 1 };
const TOOL_END = { type: 'tool_end' as const, ...TOOL_CALL, result: { found: 'X' }, timestamp: 2 };

/** Write a tool call's keyed tool_start and tool_end, hand them over as never rewritten and COMMIT them. */
async function commitToolPair(subject: StepRecordsContractSubject, streamId: string): Promise<void> {
  const { manager, stepRecords } = streamManagerOf(subject);
  const writer = await manager.createWriter(streamId, 'agent-1', 'assistant');
  try {
    const writes = [writer.write(TOOL_START, { key: 'contract:start' }), writer.write(TOOL_END, { key: 'contract:end' })];
    const handing = stepRecords.handOver(writer, { neverRewritten: true });
    await Promise.all(writes);
    const handover = await handing;
    if (handover === undefined) return expect.fail('handOver returned nothing for two buffered chunks');
    await inTransaction(subject, 'COMMIT', (connection) => handover.within(connection));
  } finally {
    await writer.close();
  }
}

/** The deltas a reader gets from `streamId`, after ending it. */
async function readEnded(subject: StepRecordsContractSubject, streamId: string): Promise<string[]> {
  const { manager } = streamManagerOf(subject);
  await manager.endStream(streamId);
  return (await collect(await manager.createReader(streamId))).map(deltaOf);
}

/**
 * Checks of `StreamManager.stepRecords`: chunks handed over and appended on a caller's connection (nothing after
 * ROLLBACK, once after COMMIT, idempotent), handed back when abandoned, and only the manager's own writers taken.
 *
 * @example
 * const checks = streamManagerChecks();
 */
export function streamManagerChecks(): StepRecordsContractCheck[] {
  return [
    {
      component: 'streamManager',
      name: 'streamManager.stepRecords.handOver: appended inside BEGIN … ROLLBACK nothing remains; inside BEGIN … COMMIT read once, in order; again, nothing more',
      run: async (subject) => {
        const { manager, stepRecords } = streamManagerOf(subject);
        const streamId = newStreamId();
        const writer = await manager.createWriter(streamId, 'agent-1', 'assistant');
        try {
          expect(await stepRecords.handOver(writer), 'nothing buffered').toBeUndefined();
          const handover = await writeAndHandOver(subject, writer, ['a', 'b', 'c']);
          if (handover === undefined) return expect.fail('handOver returned nothing for three buffered chunks');
          await inTransaction(subject, 'ROLLBACK', (connection) => handover.within(connection));
          expect(await manager.getInfo(streamId), 'after ROLLBACK').toMatchObject({ lastSequence: 0, chunkCount: 0 });
          await inTransaction(subject, 'COMMIT', async (connection) => {
            await handover.within(connection);
            expect(await manager.getInfo(streamId), 'before COMMIT').toMatchObject({ chunkCount: 0 });
          });
          expect(await manager.getInfo(streamId), 'after COMMIT').toMatchObject({ lastSequence: 3, chunkCount: 3 });
          await inTransaction(subject, 'COMMIT', (connection) => handover.within(connection));
          await writer.flush();
          expect(await manager.getInfo(streamId), 'after a repeated COMMIT').toMatchObject({ lastSequence: 3, chunkCount: 3 });
          expect(await readEnded(subject, streamId)).toEqual(['a', 'b', 'c']);
        } finally {
          await writer.close();
        }
      },
    },
    {
      component: 'streamManager',
      name: 'streamManager.stepRecords.handOver(neverRewritten): a call’s tool_start and tool_end read back whole, in order, at consecutive sequences',
      run: async (subject) => {
        const { manager } = streamManagerOf(subject);
        const streamId = newStreamId();
        await commitToolPair(subject, streamId);
        expect(await manager.getInfo(streamId)).toMatchObject({ lastSequence: 2, chunkCount: 2 });
        await manager.endStream(streamId);
        expect(await collect(await manager.createReader(streamId))).toEqual([
          { ...TOOL_START, sequence: 1 },
          { ...TOOL_END, sequence: 2 },
        ]);
        expect(await collect(await manager.createReader(streamId, 1)), 'read after the tool_start').toEqual([{ ...TOOL_END, sequence: 2 }]);
      },
    },
    {
      component: 'streamManager',
      name: 'streamManager.stepRecords.handOver(neverRewritten): a tool_start an earlier attempt stored is not stored again with its tool_end',
      run: async (subject) => {
        const { manager } = streamManagerOf(subject);
        const streamId = newStreamId();
        // The first attempt stored its tool_start (a flush while the tool ran), then died.
        const first = await manager.createWriter(streamId, 'agent-1', 'assistant');
        await first.write(TOOL_START, { key: 'contract:start' });
        await first.close();
        await commitToolPair(subject, streamId);
        await manager.endStream(streamId);
        expect(await collect(await manager.createReader(streamId))).toEqual([
          { ...TOOL_START, sequence: 1 },
          { ...TOOL_END, sequence: 2 },
        ]);
        expect(await manager.getInfo(streamId)).toMatchObject({ lastSequence: 2, chunkCount: 2 });
      },
    },
    {
      component: 'streamManager',
      name: 'streamManager.stepRecords.handOver: chunks abandoned after a ROLLBACK go back to the writer and are flushed once',
      run: async (subject) => {
        const { manager } = streamManagerOf(subject);
        const streamId = newStreamId();
        const writer = await manager.createWriter(streamId, 'agent-1', 'assistant');
        try {
          const handover = await writeAndHandOver(subject, writer, ['d', 'e']);
          if (handover === undefined) return expect.fail('handOver returned nothing for two buffered chunks');
          await inTransaction(subject, 'ROLLBACK', (connection) => handover.within(connection));
          handover.abandoned();
          await writer.flush();
          expect(await manager.getInfo(streamId)).toMatchObject({ lastSequence: 2, chunkCount: 2 });
          expect(await readEnded(subject, streamId)).toEqual(['d', 'e']);
        } finally {
          await writer.close();
        }
      },
    },
    {
      component: 'streamManager',
      name: 'streamManager.stepRecords.openStreamOn: nothing after ROLLBACK; at COMMIT an active stream; an existing one is left as it is',
      run: async (subject) => {
        const { manager, stepRecords } = streamManagerOf(subject);
        const streamId = newStreamId();
        await inTransaction(subject, 'ROLLBACK', (connection) => stepRecords.openStreamOn(connection, streamId, 'assistant'));
        expect(await manager.getInfo(streamId), 'after ROLLBACK').toBeNull();
        await inTransaction(subject, 'COMMIT', async (connection) => {
          await stepRecords.openStreamOn(connection, streamId, 'assistant');
          expect(await manager.getInfo(streamId), 'before COMMIT').toBeNull();
        });
        expect(await manager.getInfo(streamId), 'after COMMIT').toMatchObject({ status: 'active', lastSequence: 0, chunkCount: 0 });
        await manager.endStream(streamId, 'kept');
        await inTransaction(subject, 'COMMIT', (connection) => stepRecords.openStreamOn(connection, streamId, 'assistant'));
        expect(await manager.getInfo(streamId), 'an ended stream opened again').toMatchObject({ status: 'ended', output: 'kept' });
        await expect(stepRecords.openStreamOn(untouchableConnection(), '', 'assistant'), 'an empty stream id').rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      },
    },
    {
      component: 'streamManager',
      name: 'streamManager.stepRecords.reactivateStreamOn: nothing after ROLLBACK; active at COMMIT, writable again; STREAM_NOT_FOUND for no stream',
      run: async (subject) => {
        const { manager, stepRecords } = streamManagerOf(subject);
        const streamId = newStreamId();
        const writer = await manager.createWriter(streamId, 'agent-1', 'assistant');
        try {
          await writer.write(textChunk(1, 'h'));
          await manager.endStream(streamId, 'first');
          await inTransaction(subject, 'ROLLBACK', (connection) => stepRecords.reactivateStreamOn(connection, streamId));
          expect(await manager.getInfo(streamId), 'after ROLLBACK').toMatchObject({ status: 'ended' });
          const reactivated = await inTransaction(subject, 'COMMIT', async (connection) => {
            const done = await stepRecords.reactivateStreamOn(connection, streamId);
            expect(await manager.getInfo(streamId), 'before COMMIT').toMatchObject({ status: 'ended' });
            return done;
          });
          reactivated.onCommitted();
          expect(await manager.getInfo(streamId), 'after COMMIT').toMatchObject({ status: 'active', lastSequence: 1 });
          await writer.write(textChunk(2, 'i'));
          expect(await readEnded(subject, streamId)).toEqual(['h', 'i']);
          const missing = inTransaction(subject, 'ROLLBACK', (connection) => stepRecords.reactivateStreamOn(connection, newStreamId()));
          await expect(missing, 'no such stream').rejects.toMatchObject({ code: 'STREAM_NOT_FOUND' });
        } finally {
          await writer.close();
        }
      },
    },
    {
      component: 'streamManager',
      name: 'streamManager.stepRecords.endStreamOn: after the handed-over chunks, inside BEGIN … ROLLBACK the stream stays active; at COMMIT it ends with its output',
      run: async (subject) => {
        const { manager, stepRecords } = streamManagerOf(subject);
        const streamId = newStreamId();
        const writer = await manager.createWriter(streamId, 'agent-1', 'assistant');
        try {
          const endWithChunks = async (connection: StepRecordConnection, handover: ChunkHandover): Promise<{ onCommitted(): void }> => {
            await handover.within(connection);
            return stepRecords.endStreamOn(connection, streamId, { answer: 42 });
          };
          await inTransaction(subject, 'ROLLBACK', (connection) => stepRecords.endStreamOn(connection, streamId, { answer: 1 }));
          expect(await manager.getInfo(streamId), 'after ROLLBACK').toMatchObject({ status: 'active', chunkCount: 0 });
          const first = await writeAndHandOver(subject, writer, ['f', 'g']);
          if (first === undefined) return expect.fail('handOver returned nothing for two buffered chunks');
          await inTransaction(subject, 'ROLLBACK', (connection) => endWithChunks(connection, first));
          expect(await manager.getInfo(streamId), 'after ROLLBACK with chunks').toMatchObject({ status: 'active', chunkCount: 0 });
          const reading = manager.createReader(streamId).then(collect);
          const ended = await inTransaction(subject, 'COMMIT', async (connection) => {
            const done = await endWithChunks(connection, first);
            expect(await manager.getInfo(streamId), 'before COMMIT').toMatchObject({ status: 'active', chunkCount: 0 });
            return done;
          });
          ended.onCommitted();
          expect(await manager.getInfo(streamId), 'after COMMIT').toMatchObject({ status: 'ended', output: { answer: 42 }, chunkCount: 2 });
          expect((await reading).map(deltaOf), 'a reader waiting meanwhile').toEqual(['f', 'g']);
          await expect(writer.write(textChunk(1, 'late')), 'a write after the end').rejects.toMatchObject({ code: 'STREAM_CLOSED' });
          await inTransaction(subject, 'COMMIT', (connection) => stepRecords.endStreamOn(connection, streamId, { answer: 0 }));
          expect(await manager.getInfo(streamId), 'ended again').toMatchObject({ status: 'ended', output: { answer: 42 } });
          await expect(stepRecords.endStreamOn(untouchableConnection(), '', undefined), 'an empty stream id').rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
        } finally {
          await writer.close();
        }
      },
    },
    {
      component: 'streamManager',
      name: 'streamManager.stepRecords.handOver refuses a writer the manager did not create (INVALID_ARGUMENT)',
      run: async (subject) => {
        const { stepRecords } = streamManagerOf(subject);
        const foreign: StreamWriter = { write: async () => undefined, flush: async () => undefined, close: async () => undefined };
        await expect(stepRecords.handOver(foreign)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
        const other = subject.elsewhere.streamManager;
        if (other === undefined) return;
        const writer = await other.createWriter(newStreamId(), 'agent-1', 'assistant');
        try {
          await writer.write(textChunk(1, 'elsewhere'));
          await expect(stepRecords.handOver(writer)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
        } finally {
          await writer.close();
        }
      },
    },
  ];
}
