import { describe, expect, it } from 'vitest';
import type { StreamManager } from '../../../stream/stream-manager.js';
import { CONTRACT_WAIT_MS, newStreamId, textChunk } from './helpers.js';

/**
 * A listener's calls, and a way to wait for the next one (`next(ms)`: whether a call came within `ms`).
 *
 * @example
 * const hints = hintCounter();
 * const stop = streams.onStreamEnd!('s1', hints.listener);
 */
export function hintCounter(): { listener: () => void; count: () => number; next: (ms: number) => Promise<boolean> } {
  let count = 0;
  let wake: (() => void) | undefined;
  const listener = (): void => {
    count += 1;
    wake?.();
  };
  const next = (ms: number): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  return { listener, count: () => count, next };
}

/**
 * Contract: the optional `onStreamEnd` hint, declared exactly when `offered` says so. Offered, the listener is called
 * when the stream ends or fails and not for its chunks (a spurious call is allowed: it is a hint), and no more after
 * the unsubscribe.
 *
 * @example
 * defineStreamEndHintContract(create, true);
 */
export function defineStreamEndHintContract(create: () => Promise<StreamManager>, offered: boolean): void {
  describe('end hints (onStreamEnd)', () => {
    it(offered ? 'offers onStreamEnd' : 'does not offer onStreamEnd', async () => {
      expect(typeof (await create()).onStreamEnd).toBe(offered ? 'function' : 'undefined');
    });
    if (!offered) return;

    it('calls the listener when the stream ends and when it fails, and no more after the unsubscribe', async () => {
      const manager = await create();
      const streamId = newStreamId();
      const hints = hintCounter();
      const stop = manager.onStreamEnd!(streamId, hints.listener);
      const writer = await manager.createWriter(streamId, 'agent-1', 'assistant');
      await writer.write(textChunk(1, 'Hi'));
      await writer.flush();
      const ended = hints.next(CONTRACT_WAIT_MS);
      await manager.endStream(streamId);
      expect(await ended).toBe(true);
      await manager.reactivateStream(streamId);
      const failed = hints.next(CONTRACT_WAIT_MS);
      await manager.failStream(streamId, 'boom');
      expect(await failed).toBe(true);
      stop();
      const seen = hints.count();
      await manager.reactivateStream(streamId);
      await manager.endStream(streamId);
      expect(await hints.next(200)).toBe(false);
      expect(hints.count()).toBe(seen);
    });

    it('does not call the listener of another stream, and refuses a malformed stream id at once', async () => {
      const manager = await create();
      const [streamId, other] = [newStreamId(), newStreamId()];
      const hints = hintCounter();
      const stop = manager.onStreamEnd!(other, hints.listener);
      // A manager may call every listener once as it starts listening (it may have missed something): a hint.
      await hints.next(300);
      const seen = hints.count();
      await manager.endStream(streamId);
      expect(await hints.next(300)).toBe(false);
      expect(hints.count()).toBe(seen);
      stop();
      expect(() => manager.onStreamEnd!('', () => undefined)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    });
  });
}
