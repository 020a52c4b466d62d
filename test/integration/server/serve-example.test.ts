/**
 * `npm run serve -- --once` (examples/serve.ts) starts the agent server, serves one run over HTTP and exits;
 * examples/remote-sub-agent.ts delegates to an agent on an agent server over HTTP and exits.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let database: TestDatabase | undefined;
let remoteDatabase: TestDatabase | undefined;
afterAll(async () => {
  await database?.drop();
  await remoteDatabase?.drop();
});

describe('examples/serve.ts', () => {
  it('serves a run over HTTP with the scripted model and exits', async () => {
    database = await createTestDatabase('serve_example');
    const environment: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, PORT: String(await freePort()), OPENAI_API_KEY: '' };
    delete environment.NODE_OPTIONS;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/serve.ts', '--once'], { cwd: ROOT, env: environment, timeout: 60_000 });
    expect(stdout).toContain('POST /start → 201; streamed text: "Let me check the forecast.It will be 21 °C in Lisbon: a good day for a walk."; status: completed');
  }, 90_000);

  it('runs the remote sub-agent example: remote chunks reach the parent stream, the remote output the parent', async () => {
    remoteDatabase = await createTestDatabase('remote_example');
    const environment: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: remoteDatabase.url, PORT: String(await freePort()), OPENAI_API_KEY: '' };
    delete environment.NODE_OPTIONS;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/remote-sub-agent.ts'], { cwd: ROOT, env: environment, timeout: 60_000 });
    expect(stdout).toMatch(/remote session remote-example-\d+-remote-\S+ started/);
    expect(stdout).toContain('[remote] Tides');
    expect(stdout).toContain('coordinator: completed: The researcher says: Tides follow the moon.');
  }, 90_000);
});
