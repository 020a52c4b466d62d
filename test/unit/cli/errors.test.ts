import { describe, expect, it } from 'vitest';
import { CliNotConfiguredError, CliServerError, HelixCliError } from '../../../src/cli/cli-errors.js';
import { reportOf, safeText, verboseLines } from '../../../src/cli/error-report.js';
import { HelixError, StoreError } from '../../../src/index.js';

describe('what the CLI prints of an error', () => {
  it.each([
    ['credentials inside a URL', 'connect postgres://app:PW@db:5432/app failed', 'connect postgres://***@db:5432/app failed'],
    ['a user without a password', 'http://user@host/x', 'http://***@host/x'],
    ['a bearer token', 'sent Bearer abc.def.ghi', 'sent Bearer ***'],
    ['a plain text', 'No session with this id exists.', 'No session with this id exists.'],
  ])('safeText removes %s', (_label, text, safe) => {
    expect(safeText(text)).toBe(safe);
  });

  it('bounds a text to 300 characters', () => {
    expect(safeText('x'.repeat(400))).toHaveLength(300);
  });

  it.each([
    ["the CLI's own error", new CliNotConfiguredError(), 'CLI_NOT_CONFIGURED'],
    ["the server's answer", new CliServerError(409, 'NO_ACTIVE_RUN', 'The session has no running run.'), 'NO_ACTIVE_RUN'],
    ["the executor's error", new StoreError('STORE_ERROR', 'The store is unreachable.'), 'STORE_ERROR'],
  ])('reportOf keeps the code and message of %s', (_label, error, code) => {
    expect(reportOf(error)).toEqual({ code, message: (error as Error).message });
  });

  it("reportOf gives a foreign error's class only, never its message", () => {
    expect(reportOf(new RangeError('password=SECRET'))).toEqual({ code: 'INTERNAL_ERROR', message: 'The operation failed (RangeError); run again with --verbose for details.' });
    expect(reportOf('SECRET')).toEqual({ code: 'INTERNAL_ERROR', message: 'The operation failed (string); run again with --verbose for details.' });
  });

  it('--verbose lists the causes, redacted', () => {
    const error = new HelixError('STORE_ERROR', 'down', { cause: new Error('connect postgres://u:PW@h failed') });
    expect(verboseLines(error)).toEqual(['error: HelixError: down', 'cause: Error: connect postgres://***@h failed']);
  });

  it('HelixCliError.isInstance matches on name and code, also for a plain copy', () => {
    expect(HelixCliError.isInstance(new CliNotConfiguredError())).toBe(true);
    expect(HelixCliError.isInstance(Object.assign(new Error('x'), { name: 'CliUsageError', code: 'CLI_USAGE' }))).toBe(true);
    expect(HelixCliError.isInstance(new Error('x'))).toBe(false);
    expect(HelixCliError.isInstance(Object.assign(new Error('x'), { name: 'CliUsageError' }))).toBe(false);
  });
});
