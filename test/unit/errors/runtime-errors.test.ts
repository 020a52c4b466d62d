import { describe, expect, it } from 'vitest';
import { HelixError, InternalError, SessionNotFoundError, ToolContractError, safeErrorText } from '../../../src/errors/index.js';

/** DBOS revives a replayed error as a plain Error that kept its name, message and own fields. */
function revived(error: HelixError): Error {
  return Object.assign(new Error(error.message), { name: error.name, code: error.code });
}

describe('InternalError and ToolContractError', () => {
  it.each([
    [new InternalError('An invariant broke; report this.'), 'InternalError', 'INTERNAL_ERROR', (e: unknown) => InternalError.isInstance(e)],
    [new ToolContractError('The tool returned a value that is not JSON-serializable.'), 'ToolContractError', 'TOOL_ERROR', (e: unknown) => ToolContractError.isInstance(e)],
  ] as const)('%s keeps name and code, and is recognized after DBOS revived it', (error, name, code, isInstance) => {
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(HelixError);
    expect([error.name, error.code]).toEqual([name, code]);
    expect(isInstance(revived(error))).toBe(true);
    expect(HelixError.isInstance(revived(error))).toBe(true);
    expect(safeErrorText(error, { source: 'internal' })).toBe(`${code}: ${error.message}`);
  });

  it('neither recognizes the other', () => {
    expect(InternalError.isInstance(new ToolContractError('x'))).toBe(false);
    expect(ToolContractError.isInstance(new InternalError('x'))).toBe(false);
  });
});

describe('SessionNotFoundError hint', () => {
  it('replaces the default next step and keeps the id in data only', () => {
    expect(new SessionNotFoundError('s-1').message).toBe('No session with this id exists; create it with execute() first.');
    const error = new SessionNotFoundError('s-1', { hint: 'start a new session with execute().' });
    expect(error.message).toBe('No session with this id exists; start a new session with execute().');
    expect(error.data).toEqual({ sessionId: 's-1' });
  });
});
