/**
 * `streamReadIsCurrent`: a stream read beside the session (it may predate it) plans a later turn only when it was read
 * after the session's latest run ended the stream.
 */
import { describe, expect, it } from 'vitest';
import { streamReadIsCurrent } from '../../../src/executor/execute-reads.js';
import type { StreamInfo } from '../../../src/types/stream.js';

const stream = (status: StreamInfo['status'], lastSequence: number): StreamInfo => ({
  streamId: 's1',
  status,
  lastSequence,
  chunkCount: lastSequence,
  createdAt: 1,
  updatedAt: 2,
});

describe('streamReadIsCurrent', () => {
  it.each([
    ['ended after the latest run wrote', stream('ended', 9), { startSequence: 4 }, true],
    ['failed after the latest run wrote', stream('failed', 9), { startSequence: 4 }, true],
    ['read during the latest run (active)', stream('active', 9), { startSequence: 4 }, false],
    ['read before the latest run started (at its start sequence)', stream('ended', 4), { startSequence: 4 }, false],
    ['read before the latest run started (earlier)', stream('ended', 2), { startSequence: 4 }, false],
    ['no stream', null, { startSequence: 0 }, false],
    ['no run to compare with', stream('ended', 9), null, false],
  ] as const)('%s → %s', (_case, info, run, current) => {
    expect(streamReadIsCurrent(info, run)).toBe(current);
  });
});
