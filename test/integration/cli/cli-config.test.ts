/**
 * The operator CLI as a child process before any database: the typed error and exit code without a connection, usage
 * errors, help, and an unreachable database whose URL (with its password) is never printed.
 */
import { describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { runCliProcess } from './support/cli-process.js';

const COMMANDS: ReadonlyArray<readonly string[]> = [
  ['sessions', 'list'],
  ['sessions', 'show', 's1'],
  ['sessions', 'pending'],
  ['approve', 's1'],
  ['deny', 's1'],
  ['submit', 's1', 'c1', '--result', '1'],
  ['interrupt', 's1'],
  ['abort', 's1'],
  ['resume', 's1'],
  ['retry', 's1'],
  ['prune', '--older-than', '30d'],
];

describe('the CLI without DATABASE_URL and without a server', () => {
  it('refuses every command with CLI_NOT_CONFIGURED and exit code 3, for people and for scripts', async () => {
    const runs = await Promise.all(COMMANDS.map((args) => runCliProcess(args)));
    for (const [index, run] of runs.entries()) {
      expect(run.code, COMMANDS[index]?.join(' ')).toBe(3);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('CLI_NOT_CONFIGURED');
      expect(run.stderr).toContain('set DATABASE_URL');
    }
    const json = await runCliProcess(['sessions', 'list', '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'CLI_NOT_CONFIGURED', message: expect.stringContaining('HELIX_SERVER_URL') } });
  }, 120_000);
});

describe('usage', () => {
  it('answers --help and --version with 0, and bad usage with 2', async () => {
    const [help, version, unknown, missingArgument, tokenAlone, both, badServer] = await Promise.all([
      runCliProcess(['--help']),
      runCliProcess(['--version']),
      runCliProcess(['frobnicate']),
      runCliProcess(['sessions', 'show']),
      runCliProcess(['sessions', 'list', '--token', 'TOKEN-SECRET'], { DATABASE_URL: 'postgres://127.0.0.1:1/none' }),
      runCliProcess(['--direct', '--server', 'http://127.0.0.1:1', 'sessions', 'list']),
      runCliProcess(['--server', 'ftp://user:PW-SECRET@host', 'sessions', 'show', 's1']),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('sessions');
    expect(help.stdout).toContain('Exit codes');
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    expect(missingArgument.code).toBe(2);
    expect(tokenAlone.code).toBe(2);
    expect(tokenAlone.stderr).toContain('--token applies to server mode only');
    expect(tokenAlone.stderr).not.toContain('TOKEN-SECRET');
    expect(both.code).toBe(2);
    expect(badServer.code).toBe(2);
    expect(badServer.stderr).not.toContain('PW-SECRET');
  }, 120_000);

  it('reports a usage error as JSON on stderr with --json', async () => {
    const run = await runCliProcess(['sessions', 'list', '--json', '--limit', '9999'], { DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: 'CLI_USAGE', message: '--limit must be an integer from 1 to 500.' } });
  }, 60_000);
});

describe('an unreachable database', () => {
  it('fails with exit code 7 after the retry budget and never prints the connection string', async () => {
    const url = `postgres://operator:DB-PASSWORD-SECRET@127.0.0.1:${await freePort()}/app`;
    const run = await runCliProcess(['--retry-budget', '500ms', '--verbose', 'sessions', 'list'], { DATABASE_URL: url });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain('STORE_ERROR');
    expect(`${run.stdout}${run.stderr}`).not.toContain('DB-PASSWORD-SECRET');
  }, 60_000);
});
