import { globalParams } from '@dbos-inc/dbos-sdk/internal/utils';
import { describe, expect, it } from 'vitest';

import { leanStepsSupported } from '../../../src/steps/lean-step.js';

describe('leanStepsSupported', () => {
  it.each([
    ['5.3.0', true],
    ['5.3.17', true],
    ['5.4.0', false],
    ['5.30.0', false],
    ['6.0.0', false],
    ['5.3.0-beta.1', false],
    ['', false],
  ])('%s → %s', (version, expected) => {
    expect(leanStepsSupported(version)).toBe(expected);
  });

  it('takes the lean path with the DBOS this package is built and tested against', () => {
    expect(leanStepsSupported(globalParams.dbosVersion)).toBe(true);
  });
});
