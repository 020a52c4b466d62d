/** `npm run serve -- --once` (examples/serve.ts) starts the agent server, serves one run over HTTP and exits. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let database: TestDatabase | undefined;
afterAll(async () => {
  await database?.drop();
});

describe('examples/serve.ts', () => {
  it('serves a run over HTTP with the scripted model and exits', async () => {
    database = await createTestDatabase('serve_example');
    const environment: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, PORT: String(await freePort()), OPENAI_API_KEY: '' };
    delete environment.NODE_OPTIONS;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/serve.ts', '--once'], { cwd: ROOT, env: environment, timeout: 60_000 });
    expect(stdout).toContain('POST /start → 201; streamed text: "Let me check the forecast.It will be 21 °C in Lisbon: a good day for a walk."; status: completed');
  }, 90_000);
});
