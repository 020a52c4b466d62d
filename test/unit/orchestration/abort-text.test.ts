import { describe, expect, it } from 'vitest';
import { abortErrorText, abortedResultOf, isAbortReason } from '../../../src/orchestration/abort-text.js';

describe('abort texts', () => {
  it.each([
    [undefined, 'Aborted'],
    ['cancelled by user', 'Aborted: cancelled by user'],
  ])('abortErrorText(%j) is %j, which isAbortReason recognises', (reason, text) => {
    expect(abortErrorText(reason)).toBe(text);
    expect(isAbortReason(text)).toBe(true);
  });

  it.each([undefined, 'Abortedness', 'stop', 'aborted'])('isAbortReason(%j) is false', (reason) => {
    expect(isAbortReason(reason)).toBe(false);
  });
});

describe('abortedResultOf', () => {
  const at = { sessionId: 's1', runId: 'r1' };
  it.each([
    ['no run record (aborted before its begin)', null, { stepCount: 0 }],
    ['a record without an error', { stepCount: 3 }, { stepCount: 3 }],
    ['a record with its error', { stepCount: 2, error: 'Aborted: enough' }, { stepCount: 2, error: 'Aborted: enough' }],
  ])('%s', (_case, run, expected) => {
    expect(abortedResultOf(at, run)).toEqual({ sessionId: 's1', runId: 'r1', status: 'aborted', completionReason: 'aborted', ...expected });
  });
});
