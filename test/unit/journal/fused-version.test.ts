import { globalParams } from '@dbos-inc/dbos-sdk/internal/utils';
import { describe, expect, it } from 'vitest';

import { fusedJournal, fusedJournalSupported } from '../../../src/journal/fused/fused-journal.js';

describe('fusedJournalSupported', () => {
  it.each([
    ['5.3.0', true],
    ['5.3.17', true],
    ['5.4.0', false],
    ['5.30.0', false],
    ['6.0.0', false],
    ['5.3.0-beta.1', false],
    ['', false],
  ])('%s → %s', (version, expected) => {
    expect(fusedJournalSupported(version)).toBe(expected);
  });

  it('is offered with the DBOS this package is built and tested against, and refused on another release', () => {
    expect(fusedJournalSupported(globalParams.dbosVersion)).toBe(true);
    expect(fusedJournal(globalParams.dbosVersion)?.kind).toBe('fused');
    expect(fusedJournal('5.4.0')).toBeUndefined();
  });
});
