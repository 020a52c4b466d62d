import { Error as DBOSErrors } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { isDBOSControlError } from '../../../src/workflows/dbos-control-errors.js';

function revived(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

describe('isDBOSControlError', () => {
  const cases: Array<[string, unknown, boolean]> = [
    ['ownership lost (class)', new DBOSErrors.DBOSWorkflowConflictError('wf-1'), true],
    ['ownership lost (revived by name)', revived('DBOSWorkflowConflictError', 'x'), true],
    ['ownership lost (message only)', new Error('Workflow wf-1 is no longer owned by this execution'), true],
    ['cancelled (class)', new DBOSErrors.DBOSWorkflowCancelledError('wf-1'), true],
    ['a tool error', new Error('boom'), false],
    ['a store error', revived('StoreError', 'connection refused'), false],
    ['not an error', 'DBOSWorkflowConflictError', false],
  ];
  it.each(cases)('%s', (_label, error, expected) => {
    expect(isDBOSControlError(error)).toBe(expected);
  });
});
