/**
 * `npm start` end to end: the demo script runs in a child process against a fresh test database
 * (DATABASE_URL), with the scripted model, with the OpenAI adapter against the fake OpenAI server, and
 * through the crash drill (SIGKILL while the slow tool works, then a restart with the same session).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_APP_NAME } from '../../examples/demo/app-config.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai/index.js';
import { createTestDatabase, type TestDatabase } from '../support/services.js';

const ROOT = resolve(import.meta.dirname, '../..');

interface DemoRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** stdout as the separate pieces the pipe delivered, in order. */
  pieces: string[];
}

/** Run examples/demo.ts with tsx; with `killWhen`, SIGKILL it as soon as its stdout satisfies the predicate. */
async function runDemo(args: string[], env: Record<string, string>, killWhen?: (output: string) => boolean): Promise<DemoRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/demo.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DEMO_SLOW_TOOL_MS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pieces: string[] = [];
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (piece: string) => {
    pieces.push(piece);
    if (killWhen?.(pieces.join('')) === true) child.kill('SIGKILL');
  });
  child.stderr.setEncoding('utf8').on('data', (piece: string) => (stderr += piece));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) => child.on('exit', (...result) => done(result)));
  const output = pieces.join('') + (stderr.length > 0 ? `\n[stderr]\n${stderr}` : '');
  return { code, signal, output, pieces };
}

async function queryRows<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The durable record's line for a tool: name, calls, started, finished. */
function toolLine(output: string, tool: string): number[] | undefined {
  const match = new RegExp(`^${tool}\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)$`, 'm').exec(output);
  return match?.slice(1).map(Number);
}

let database: TestDatabase | undefined;
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await database?.drop();
  database = undefined;
});

describe('npm start (examples/demo.ts)', () => {
  it('streams the scripted run, prints the structured output and the durable record', async () => {
    database = await createTestDatabase('demo_scripted');
    const run = await runDemo(['--session', 'demo-scripted'], { DATABASE_URL: database.url, DEMO_SLOW_TOOL_MS: '200' });
    expect(run.code, run.output).toBe(0);
    const { output } = run;
    expect(output).toContain('scripted model (no OPENAI_API_KEY set');
    expect(output).toContain("Good question! I'll compare the weekend forecasts for Lisbon and Porto first.");
    // Text arrives word by word while the model "generates", not in one piece at the end.
    const firstWord = run.pieces.findIndex((piece) => piece.includes('Good '));
    const lastWord = run.pieces.findIndex((piece) => piece.includes('first.'));
    expect(firstWord).toBeGreaterThanOrEqual(0);
    expect(lastWord).toBeGreaterThan(firstWord);
    expect(output).toContain('→ get_weather({"city":"Lisbon"})');
    expect(output).toContain('· state add /notes/- = ');
    expect(output).toMatch(/✓ draft_itinerary: \{"city":"Lisbon"/);
    expect(output).toContain('completed (finish_tool) after 4 steps');
    expect(output).toContain('"destination": "Lisbon"');
    expect(output).toContain('"Day 3: Tram 28, LX Factory and a fado evening"');
    expect(output).toMatch(/^\s+1\s+run-\S+\s+completed\s+finish_tool\s+4\s/m);
    for (const step of ['BeginRunStep', 'CallLLMStep', 'ExecuteToolStep:get_weather', 'FinishRunStep']) expect(output).toContain(step);
    // The "DBOS steps" table: every step under contiguous function ids, from BeginRunStep (0) to FinishRunStep.
    const stepIds = [...output.matchAll(/^\s*(\d+)\s+(?:BeginRunStep|CallLLMStep|ExecuteToolStep:\w+|FinishRunStep)\s/gm)].map((match) => Number(match[1]));
    expect(stepIds.length).toBeGreaterThan(4);
    expect(stepIds).toEqual(stepIds.map((_, index) => index));
    // Step commits ride in the next LLM step or the finish (issue 11): no CommitStep of their own.
    expect(output).not.toContain('CommitStep');
    expect(output).toMatch(/^run-\S+:4\s+4\s+10\s+notes: 1 item/m);
    expect(output).toMatch(/^\s+4\s+\d+\s+160\s+\d+\s+4\s+0\s+\d+$/m);
    expect(toolLine(output, 'get_weather')).toEqual([2, 2, 2]);
    expect(toolLine(output, 'draft_itinerary')).toEqual([1, 1, 1]);

    const workflows = await queryRows<{ status: string }>(database.url, 'SELECT status FROM dbos.workflow_status WHERE workflow_uuid LIKE $1', ['trip_planner__demo-scripted__%']);
    expect(workflows).toEqual([{ status: 'SUCCESS' }]);
  }, 90_000);

  it('recovers a run killed mid-tool without repeating the tools that had completed', async () => {
    database = await createTestDatabase('demo_crash');
    const env = { DATABASE_URL: database.url };
    const killed = await runDemo(['--session', 'demo-crash'], { ...env, DEMO_SLOW_TOOL_MS: '60000' }, (output) => output.includes('→ draft_itinerary'));
    expect(killed.signal, killed.output).toBe('SIGKILL');
    expect(killed.output).not.toContain('Structured output');
    const pending = await queryRows<{ status: string }>(database.url, 'SELECT status FROM dbos.workflow_status WHERE workflow_uuid LIKE $1', ['trip_planner__demo-crash__%']);
    expect(pending).toEqual([{ status: 'PENDING' }]);

    const recovered = await runDemo(['--session', 'demo-crash'], { ...env, DEMO_SLOW_TOOL_MS: '0' });
    expect(recovered.code, recovered.output).toBe(0);
    const { output } = recovered;
    expect(output).toContain('Recovering session demo-crash');
    expect(output).toContain('[live: this process continues the recovered run]');
    expect(output).toContain('"destination": "Lisbon"');
    expect(toolLine(output, 'get_weather')).toEqual([2, 2, 2]);
    expect(toolLine(output, 'save_note')).toEqual([1, 1, 1]);
    expect(toolLine(output, 'draft_itinerary')).toEqual([1, 2, 1]);
    expect(output).toContain('cut off by a crash');
    const workflows = await queryRows<{ status: string }>(database.url, 'SELECT status FROM dbos.workflow_status WHERE workflow_uuid LIKE $1', ['trip_planner__demo-crash__%']);
    expect(workflows).toEqual([{ status: 'SUCCESS' }]);

    const again = await runDemo(['--session', 'demo-crash'], env);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain('already completed; nothing to recover');
  }, 120_000);

  it('uses VercelAIAdapter with @ai-sdk/openai when OPENAI_API_KEY is set', async () => {
    database = await createTestDatabase('demo_openai');
    fake = await startFakeOpenAI([
      { type: 'tool_calls', text: 'Checking both forecasts.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Lisbon' } }, { name: 'get_weather', arguments: { city: 'Porto' } }] },
      { type: 'tool_calls', toolCalls: [{ name: 'save_note', arguments: { note: 'Lisbon is sunnier' } }] },
      { type: 'tool_calls', toolCalls: [{ name: 'draft_itinerary', arguments: { city: 'Lisbon', days: 2 } }] },
      { type: 'tool_calls', text: 'Done planning.', toolCalls: [{ name: '__finish__', arguments: { destination: 'Lisbon', reason: 'Sun', itinerary: ['Day 1', 'Day 2'] } }] },
    ]);
    const run = await runDemo(['--session', 'demo-openai'], {
      DATABASE_URL: database.url,
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_MODEL: 'fake-model',
      DEMO_SLOW_TOOL_MS: '0',
    });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('OpenAI fake-model via VercelAIAdapter');
    expect(run.output).toContain('Checking both forecasts.');
    expect(run.output).toContain('"itinerary": [\n    "Day 1",\n    "Day 2"\n  ]');
    expect(fake.requestCount).toBe(4);
    expect(fake.requests.every((request) => request.api === 'responses')).toBe(true);
    expect(toolLine(run.output, 'draft_itinerary')).toEqual([1, 1, 1]);
  }, 90_000);

  it('exits 1 when the run fails (a database that does not exist)', async () => {
    database = await createTestDatabase('demo_fails');
    const missing = new URL(database.url);
    missing.pathname = '/helix_demo_no_such_database';
    const run = await runDemo(['--session', 'demo-fails'], { DATABASE_URL: missing.toString() });
    expect(run.output).toContain('demo failed');
    expect(run.code, run.output).toBe(1);
  });

  it('has a dbos-config.yaml that starts the same app under the same name', () => {
    const yaml = readFileSync(resolve(ROOT, 'dbos-config.yaml'), 'utf8');
    expect(/^name:\s*(\S+)\s*$/m.exec(yaml)?.[1]).toBe(DEMO_APP_NAME);
    expect(yaml).toMatch(/^runtimeConfig:\n\s+start:\n\s+- npx tsx examples\/demo\.ts$/m);
  });

  it('keeps the README example identical to the type-checked examples/readme-example.ts', () => {
    const codeLines = (text: string): string[] => text.split('\n').filter((line) => line.trim().length > 0);
    const readme = /```ts\n([\s\S]*?)```/.exec(readFileSync(resolve(ROOT, 'README.md'), 'utf8'))?.[1] ?? '';
    const example = readFileSync(resolve(ROOT, 'examples/readme-example.ts'), 'utf8');
    expect(codeLines(readme).length).toBeGreaterThan(5);
    expect(codeLines(example.slice(example.indexOf('const weather')))).toEqual(codeLines(readme));
  });
});
