import { describe, expect, it } from 'vitest';
import { JournalFormatUnsupportedError } from '../../../src/errors/index.js';
import { JOURNAL_FORMAT, refuseUnknownJournal } from '../../../src/journal/format.js';

describe('refuseUnknownJournal: the step-journal formats this release replays', () => {
  it.each([
    ['format 1 (its LLM and committed tool records read back as they are)', 1],
    ['this release’s format', JOURNAL_FORMAT],
  ])('replays %s', (_case, format) => {
    expect(() => refuseUnknownJournal('wf', { format, journal: 'fused' })).not.toThrow();
    expect(() => refuseUnknownJournal('wf', { format, journal: 'public' })).not.toThrow();
  });

  it.each([
    ['a run of a release before format 1 (no stamp)', undefined, null],
    ['a newer format', JOURNAL_FORMAT + 1, JOURNAL_FORMAT + 1],
    ['format 0', 0, 0],
  ])('refuses %s, naming its format', (_case, format, named) => {
    const stamp = format === undefined ? undefined : { format, journal: 'fused' as const };
    let refusal: unknown;
    try {
      refuseUnknownJournal('wf', stamp);
    } catch (error) {
      refusal = error;
    }
    expect(JournalFormatUnsupportedError.isInstance(refusal)).toBe(true);
    expect((refusal as JournalFormatUnsupportedError).message).toContain(`format ${named ?? 'before 1'}`);
  });

  it('writes format 2', () => {
    expect(JOURNAL_FORMAT).toBe(2);
  });
});
