import { describe, expect, it } from 'vitest';
import { CliAnswerRefusedError, CliConnectionError, CliConsoleRequiredError, CliNotConfiguredError, CliRouteMissingError, CliServerError, CliUnsupportedError, CliUsageError } from '../../../src/cli/cli-errors.js';
import { bulkExitCode, exitCodeOf } from '../../../src/cli/exit-codes.js';
import { HelixError, NotResumableError, SessionNotFoundError, StoreError } from '../../../src/index.js';

describe('exitCodeOf', () => {
  it.each([
    ['usage', new CliUsageError('bad'), 2],
    ['an executor argument error', new HelixError('INVALID_ARGUMENT', 'bad'), 2],
    ['not configured', new CliNotConfiguredError(), 3],
    ['unsupported in this mode', new CliUnsupportedError('resume', 'direct', 'use --server.'), 4],
    ['a route the server lacks', new CliRouteMissingError('retry', '/retry'), 4],
    ['a server without the console API', new CliConsoleRequiredError('sessions list', '/console'), 4],
    ['a missing session', new SessionNotFoundError('s1'), 5],
    ["the server's 404", new CliServerError(404, 'SESSION_NOT_FOUND', 'No session.'), 5],
    ['an unknown call', new CliAnswerRefusedError('CLI_CALL_NOT_FOUND', 'No call.'), 5],
    ['no running run', new HelixError('NO_ACTIVE_RUN', 'idle'), 6],
    ['not resumable', new NotResumableError('s1', 'completed', 'nothing to resume.'), 6],
    ['answered before', new CliAnswerRefusedError('CLI_ALREADY_ANSWERED', 'Answered.'), 6],
    ['unreachable', new CliConnectionError('down'), 7],
    ['credentials refused', new CliServerError(401, 'UNAUTHENTICATED', 'no'), 7],
    ['a store past its retry budget', new StoreError('STORE_ERROR', 'down'), 7],
    ["the server's 500", new CliServerError(500, 'INTERNAL_ERROR', 'oops'), 1],
    ['a foreign error', new TypeError('boom'), 1],
    ['a thrown string', 'boom', 1],
  ])('%s → %i', (_label, error, code) => {
    expect(exitCodeOf(error)).toBe(code);
  });
});

describe('bulkExitCode', () => {
  it.each([
    ['nothing', [], 0],
    ['every item done', [{}, {}], 0],
    ['the first failure decides', [{}, { error: { code: 'NO_ACTIVE_RUN' } }, { error: { code: 'SESSION_NOT_FOUND' } }], 6],
    ['an unknown code', [{ error: { code: 'SOMETHING_ELSE' } }], 1],
  ] as const)('%s → %i', (_label, items, code) => {
    expect(bulkExitCode(items)).toBe(code);
  });
});
