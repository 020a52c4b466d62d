import { describe, expect, it } from 'vitest';
import { clientResultOf, selectApprovals } from '../../../src/cli/answers.js';
import { resumeOptionsOf } from '../../../src/cli/commands/control-commands.js';
import { resolveTarget } from '../../../src/cli/connection-target.js';
import { parseDuration, parseSince } from '../../../src/cli/durations.js';
import { integerOption, listQueryOf } from '../../../src/cli/list-query.js';

const NOW = Date.parse('2025-01-31T12:00:00Z');

describe('sessions list: options → SessionListQuery', () => {
  it.each([
    ['no options: top-level sessions, 50 a page', {}, { rootsOnly: true, limit: 50 }],
    ['agent and statuses', { agent: 'assistant', status: 'active, failed' }, { rootsOnly: true, limit: 50, agentType: 'assistant', status: ['active', 'failed'] }],
    ['waiting for a human', { awaitingHuman: true }, { rootsOnly: true, limit: 50, awaitingHuman: true }],
    ['not waiting (--no-awaiting-human)', { awaitingHuman: false }, { rootsOnly: true, limit: 50, awaitingHuman: false }],
    ['since a duration ago', { since: '2h' }, { rootsOnly: true, limit: 50, updatedSince: NOW - 7_200_000 }],
    ['since a date', { since: '2025-01-01T00:00:00Z' }, { rootsOnly: true, limit: 50, updatedSince: Date.parse('2025-01-01T00:00:00Z') }],
    ['one user', { user: 'alice' }, { rootsOnly: true, limit: 50, userId: 'alice' }],
    ['sessions without a user', { anonymous: true }, { rootsOnly: true, limit: 50, userId: null }],
    ['children too, a page size and a cursor', { includeChildren: true, limit: '10', cursor: 'abc' }, { rootsOnly: false, limit: 10, cursor: 'abc' }],
  ])('%s', (_label, options, query) => {
    expect(listQueryOf(options, NOW)).toEqual(query);
  });

  it.each([
    ['an unknown status', { status: 'done' }, '--status takes'],
    ['an empty status list', { status: ',' }, '--status takes'],
    ['a limit of 0', { limit: '0' }, '--limit must be'],
    ['a limit over 500', { limit: '501' }, '--limit must be'],
    ['a fractional limit', { limit: '2.5' }, '--limit must be'],
    ['a malformed --since', { since: 'yesterday' }, '--since must be'],
    ['--user with --anonymous', { user: 'a', anonymous: true }, 'exclude each other'],
  ])('refuses %s with CLI_USAGE', (_label, options, message) => {
    expect(() => listQueryOf(options, NOW)).toThrow(expect.objectContaining({ code: 'CLI_USAGE', message: expect.stringContaining(message) }));
  });
});

describe('durations and integers', () => {
  it.each([
    ['250ms', 250],
    ['90s', 90_000],
    ['15m', 900_000],
    ['1.5h', 5_400_000],
    ['30d', 2_592_000_000],
    ['2w', 1_209_600_000],
    ['0s', 0],
  ])('%s = %i ms', (text, ms) => {
    expect(parseDuration(text, '--older-than')).toBe(ms);
  });

  it.each(['', '30', 'd', '-1d', '1y', '1 d'])('refuses %j', (text) => {
    expect(() => parseDuration(text, '--older-than')).toThrow(expect.objectContaining({ code: 'CLI_USAGE', message: expect.stringContaining('--older-than') }));
  });

  it('reads --since as a duration back from now or an ISO date', () => {
    expect(parseSince('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseSince('2025-01-30', NOW)).toBe(Date.parse('2025-01-30'));
    expect(() => parseSince('2025-13-45', NOW)).toThrow(expect.objectContaining({ code: 'CLI_USAGE' }));
  });

  it.each([
    ['25', 25],
    ['1', 1],
    ['1000', 1_000],
  ])('integerOption %s', (text, value) => {
    expect(integerOption(text, '--batch-size', 1, 1_000)).toBe(value);
  });

  it.each(['0', '1001', '-3', 'x'])('integerOption refuses %s', (text) => {
    expect(() => integerOption(text, '--batch-size', 1, 1_000)).toThrow(expect.objectContaining({ code: 'CLI_USAGE' }));
  });
});

describe('connection: options and environment → mode', () => {
  const DB = 'postgres://app:pw@db/app';
  it.each([
    ['DATABASE_URL alone: direct', {}, { DATABASE_URL: DB }, { mode: 'direct', databaseUrl: DB, systemDatabaseUrl: DB }],
    ['a separate DBOS system database', {}, { DATABASE_URL: DB, DBOS_SYSTEM_DATABASE_URL: 'postgres://sys' }, { mode: 'direct', databaseUrl: DB, systemDatabaseUrl: 'postgres://sys' }],
    ['a schema from the flag over the environment', { schema: 'helix' }, { DATABASE_URL: DB, HELIX_SCHEMA: 'other' }, { mode: 'direct', databaseUrl: DB, systemDatabaseUrl: DB, schema: 'helix' }],
    ['--server and --token', { server: 'http://127.0.0.1:3000/', token: 't' }, { DATABASE_URL: DB }, { mode: 'server', url: 'http://127.0.0.1:3000', token: 't', consolePath: '/console' }],
    ['HELIX_SERVER_URL and HELIX_TOKEN', {}, { HELIX_SERVER_URL: 'https://agents.example/api', HELIX_TOKEN: 'e' }, { mode: 'server', url: 'https://agents.example/api', token: 'e', consolePath: '/console' }],
    ['--token over HELIX_TOKEN', { token: 'f' }, { HELIX_SERVER_URL: 'http://h', HELIX_TOKEN: 'e' }, { mode: 'server', url: 'http://h', token: 'f', consolePath: '/console' }],
    ['a server without a token (an unauthenticated server)', { server: 'http://h' }, {}, { mode: 'server', url: 'http://h', consolePath: '/console' }],
    ['a console path from the flag', { server: 'http://h', consolePath: '/admin/console/' }, { HELIX_CONSOLE_PATH: '/x' }, { mode: 'server', url: 'http://h', consolePath: '/admin/console' }],
    ['a console path from HELIX_CONSOLE_PATH', {}, { HELIX_SERVER_URL: 'http://h', HELIX_CONSOLE_PATH: '/ops' }, { mode: 'server', url: 'http://h', consolePath: '/ops' }],
    ['--direct over HELIX_SERVER_URL', { direct: true }, { DATABASE_URL: DB, HELIX_SERVER_URL: 'http://h' }, { mode: 'direct', databaseUrl: DB, systemDatabaseUrl: DB }],
    ['blank variables count as unset', {}, { DATABASE_URL: DB, HELIX_SERVER_URL: ' ' }, { mode: 'direct', databaseUrl: DB, systemDatabaseUrl: DB }],
  ])('%s', (_label, options, env, target) => {
    expect(resolveTarget(options, env)).toEqual(target);
  });

  it.each([
    ['nothing configured', {}, {}, 'CLI_NOT_CONFIGURED'],
    ['only HELIX_TOKEN', {}, { HELIX_TOKEN: 't' }, 'CLI_NOT_CONFIGURED'],
    ['--direct without DATABASE_URL', { direct: true }, { HELIX_SERVER_URL: 'http://h' }, 'CLI_NOT_CONFIGURED'],
    ['--direct with --server', { direct: true, server: 'http://h' }, { DATABASE_URL: DB }, 'CLI_USAGE'],
    ['--token in direct mode', { token: 't' }, { DATABASE_URL: DB }, 'CLI_USAGE'],
    ['--schema in server mode', { schema: 's' }, { HELIX_SERVER_URL: 'http://h' }, 'CLI_USAGE'],
    ['--console-path in direct mode', { consolePath: '/console' }, { DATABASE_URL: DB }, 'CLI_USAGE'],
    ['a console path that is no path', { server: 'http://h', consolePath: 'console?x=1' }, {}, 'CLI_USAGE'],
    ['a server URL that is not http(s)', { server: 'ftp://h' }, {}, 'CLI_USAGE'],
    ['a relative server URL', { server: 'localhost:3000' }, {}, 'CLI_USAGE'],
    ['credentials in the server URL', { server: 'http://u:SECRET@h' }, {}, 'CLI_USAGE'],
  ])('refuses %s', (_label, options, env, code) => {
    let error: unknown;
    try {
      resolveTarget(options, env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code });
    expect((error as Error).message).not.toContain('SECRET');
    expect((error as Error).message).not.toContain('pw@');
  });
});

describe('answers', () => {
  const calls = [
    { sessionId: 's1', toolCallId: 'c1', toolName: 'pay', kind: 'approval', input: {}, approvalId: 'a1' },
    { sessionId: 's1', toolCallId: 'c2', toolName: 'ask', kind: 'client', input: {} },
    { sessionId: 's1', toolCallId: 'c3', toolName: 'refund', kind: 'approval', input: {} },
  ];
  it.each([
    ['every open approval', {}, [{ toolCallId: 'c1', approvalId: 'a1' }, { toolCallId: 'c3', approvalId: 'c3' }]],
    ['the approvals of one tool', { tool: 'refund' }, [{ toolCallId: 'c3', approvalId: 'c3' }]],
    ['named calls (an unknown one is still sent)', { calls: ['c1', 'zz'] }, [{ toolCallId: 'c1', approvalId: 'a1' }, { toolCallId: 'zz', approvalId: 'zz' }]],
    ['a tool with no approval', { tool: 'ask' }, []],
  ])('selectApprovals: %s', (_label, options, selected) => {
    expect(selectApprovals(calls, options)).toEqual(selected);
  });

  it.each([
    ['a JSON object', { result: '{"city":"Oslo"}' }, { result: { city: 'Oslo' } }],
    ['a JSON string', { result: '"yes"' }, { result: 'yes' }],
    ['an error', { error: 'denied by the user' }, { error: 'denied by the user' }],
  ])('clientResultOf: %s', (_label, options, answer) => {
    expect(clientResultOf(options)).toEqual(answer);
  });

  it.each([
    ['neither', {}],
    ['both', { result: '1', error: 'x' }],
    ['text that is not JSON (not echoed)', { result: 'PAYLOAD-123 {' }],
  ])('clientResultOf refuses %s', (_label, options) => {
    expect(() => clientResultOf(options)).toThrow(expect.objectContaining({ code: 'CLI_USAGE', message: expect.not.stringContaining('PAYLOAD-123') }));
  });

  it.each([
    ['no options: continue as the server decides', {}, {}],
    ['a message picks with_message', { message: 'Go on.' }, { mode: 'with_message', message: 'Go on.' }],
    ['a checkpoint picks from_checkpoint', { checkpoint: 'r1:2' }, { mode: 'from_checkpoint', checkpointId: 'r1:2' }],
    ['an explicit mode', { mode: 'with_confirmation' }, { mode: 'with_confirmation' }],
  ])('resumeOptionsOf: %s', (_label, options, resume) => {
    expect(resumeOptionsOf(options)).toEqual(resume);
  });

  it.each([
    ['an unknown mode', { mode: 'rewind' }],
    ['with_message without a message', { mode: 'with_message' }],
    ['from_checkpoint without a checkpoint', { mode: 'from_checkpoint' }],
    ['a message with another mode', { mode: 'continue', message: 'x' }],
    ['a checkpoint with a message', { message: 'x', checkpoint: 'r1:2' }],
  ])('resumeOptionsOf refuses %s', (_label, options) => {
    expect(() => resumeOptionsOf(options)).toThrow(expect.objectContaining({ code: 'CLI_USAGE' }));
  });
});
