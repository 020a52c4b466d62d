import { expect } from 'vitest';
import type { StreamManager } from '../../../src/stream/stream-manager.js';
import type { hintCounter } from '../../../src/testing/contracts/stream-manager-contract/end-hints.js';

type Hints = ReturnType<typeof hintCounter>;

/**
 * What a manager's end hints must do across managers (another process's): `worker` writes a chunk to `streamId`, ends
 * it, ends it again, reactivates and fails it; `hints` (subscribed to `streamId` on the reading manager, already past
 * its subscription's own wake-up) hears the end and the failure and nothing else, and `other` (another stream) nothing.
 *
 * @example
 * await expectEndAndFailureHinted(worker, 'hinted', hints, other);
 */
export async function expectEndAndFailureHinted(worker: StreamManager, streamId: string, hints: Hints, other: Hints): Promise<void> {
  const [before, otherBefore] = [hints.count(), other.count()];
  const writer = await worker.createWriter(streamId, 'agent', 'chat');
  await writer.write({ type: 'text_delta', agentId: 'agent', agentType: 'chat', delta: 'Hi.', step: 1, timestamp: Date.now() });
  await writer.flush();
  expect(await hints.next(150)).toBe(false);
  const ended = hints.next(2_000);
  await worker.endStream(streamId, { done: true });
  expect(await ended).toBe(true);
  // Ending it again changes nothing: no second hint.
  await worker.endStream(streamId);
  expect(await hints.next(150)).toBe(false);
  await worker.reactivateStream(streamId);
  const failed = hints.next(2_000);
  await worker.failStream(streamId, 'boom');
  expect(await failed).toBe(true);
  expect([hints.count() - before, other.count() - otherBefore]).toEqual([2, 0]);
}
