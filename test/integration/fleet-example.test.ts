/**
 * `npm run example:fleet` (examples/fleet.ts) end to end against a fresh test database (DATABASE_URL): the API process
 * spawns its worker, enqueues three sessions, prints their streams and results, and everything shuts down cleanly.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/services.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FORECASTS = [
  ['Lisbon', 'Lisbon expects sunny and 24 °C this weekend.'],
  ['Porto', 'Porto expects rain showers and 17 °C this weekend.'],
  ['Oslo', 'Oslo expects overcast and 9 °C this weekend.'],
] as const;

let database: TestDatabase | undefined;
afterAll(async () => {
  await database?.drop();
});

describe('examples/fleet.ts', () => {
  it('runs three enqueued sessions on its worker process, streams them in the API process and exits cleanly', async () => {
    database = await createTestDatabase('fleet_example');
    const environment: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url };
    delete environment.NODE_OPTIONS;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/fleet.ts'], { cwd: ROOT, env: environment, timeout: 60_000 });

    expect(stdout).toMatch(/\[worker fleet-worker-1\] ready: pid \d+, queue "agents", 2 runs at a time/);
    for (const [city, answer] of FORECASTS) {
      // Streamed text of both steps, the tool call the worker made, and the result DBOS recorded for the worker's run.
      expect(stdout).toContain(`Checking the forecast for ${city}.`);
      expect(stdout).toContain(`→ get_weather({"city":"${city}"})`);
      expect(stdout).toContain(`  ${answer}`);
      expect(stdout).toContain(`Result: completed after 2 steps, run by fleet-worker-1: "${answer}"`);
    }
    expect(stdout).not.toContain('starts over');
    expect(stdout).toContain('[worker fleet-worker-1] stopping');
    expect(stdout).toContain('Worker exited with code 0.');

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ status: string; executor_id: string; queue_name: string }>(
        "SELECT status, executor_id, queue_name FROM dbos.workflow_status WHERE workflow_uuid LIKE 'fleet_weather__%'",
      );
      expect(rows).toEqual(Array.from({ length: 3 }, () => ({ status: 'SUCCESS', executor_id: 'fleet-worker-1', queue_name: 'agents' })));
    } finally {
      await client.end();
    }
  }, 90_000);
});
