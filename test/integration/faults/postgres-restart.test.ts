/**
 * Postgres restarted under running agents (3 s down) while the app keeps running: DBOS waits out its own system
 * database, the stores and streams wait out theirs (retry budget), and every run completes — none failed, no
 * message or chunk duplicated, no finished tool re-run. The test owns its Postgres (never the shared one).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { PostgresUsageStore } from '../../../src/usage/postgres/postgres-usage-store.js';
import type { AgentResult } from '../../../src/types/result.js';
import { startOwnPostgres, type OwnPostgresServer } from '../../support/own-postgres.js';
import { readStream } from '../../support/read-stream.js';

const SESSIONS = 6;
const STEPS = 12;
const retry = { budgetMs: 60_000, initialDelayMs: 20, maxDelayMs: 250 };

let server: OwnPostgresServer;
let pool: pg.Pool;
let stateStore: PostgresStateStore;
let streamManager: PostgresStreamManager;
let usageStore: PostgresUsageStore;

/** The tool writes a row of its own (the app's side effect), waiting out the outage like a careful app would. */
async function insertOwnRow(sessionId: string, toolCallId: string): Promise<void> {
  for (;;) {
    try {
      await pool.query('INSERT INTO outage_tool_rows (session_id, tool_call_id) VALUES ($1, $2)', [sessionId, toolCallId]);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const record = defineTool({
  name: 'record',
  description: 'Record one step',
  parameters: z.object({ n: z.number() }),
  execute: async ({ n }, context) => {
    await insertOwnRow(context.sessionId, context.toolCallId);
    await new Promise((resolve) => setTimeout(resolve, 60));
    return { recorded: n };
  },
});
const agent = defineAgent({ name: 'outage_agent', systemPrompt: 'Record.', tools: [record], maxSteps: STEPS + 2 });
const llm = new MockLLMAdapter(
  (input) =>
    (input.step ?? 1) <= STEPS
      ? { type: 'tool_calls', toolCalls: [{ id: `rec-${input.step}`, name: 'record', arguments: { n: input.step } }] }
      : { type: 'text', text: 'all recorded' },
  { recordInputs: false },
);

beforeAll(async () => {
  server = await startOwnPostgres('runtime-outage');
  pool = new pg.Pool({ connectionString: server.url, max: 4 });
  pool.on('error', () => undefined);
  await pool.query('CREATE TABLE outage_tool_rows (session_id text NOT NULL, tool_call_id text NOT NULL)');
  stateStore = new PostgresStateStore({ connectionString: server.url }, { retry });
  await stateStore.migrate();
  streamManager = new PostgresStreamManager({ connectionString: server.url }, { retry });
  usageStore = new PostgresUsageStore({ connectionString: server.url, retry });
  new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter: llm, toolRetryPolicy: { maxAttempts: 1 } });
  DBOS.setConfig({ name: 'helix-outage', systemDatabaseUrl: server.url, applicationVersion: 'outage', logLevel: 'error' });
  await DBOS.launch();
}, 90_000);

afterAll(async () => {
  await DBOS.shutdown().catch(() => undefined);
  await Promise.allSettled([stateStore?.close(), streamManager?.close(), usageStore?.close(), pool?.end()]);
  await server?.destroy();
});

describe('Postgres restarted while the app keeps running', () => {
  it('every run completes once: none failed, nothing duplicated, no finished tool re-run', async () => {
    const executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter: llm, toolRetryPolicy: { maxAttempts: 1 } });
    const ids = Array.from({ length: SESSIONS }, (_, index) => `outage-${index}`);
    const handles = await Promise.all(ids.map((sessionId) => executor.execute(agent, 'record everything', { sessionId })));
    const results = Promise.all(handles.map((handle) => handle.result()));

    // Down for 3 s while the runs are mid-way.
    await waitForRows(SESSIONS * 3);
    await server.stop();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await server.start();

    await expectAllCompletedOnce(ids, await results);
  }, 120_000);

  it('backends terminated over and over (pg_terminate_backend every 40 ms for 2 s): every run completes once', async () => {
    const executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter: llm, toolRetryPolicy: { maxAttempts: 1 } });
    const ids = Array.from({ length: SESSIONS }, (_, index) => `terminated-${index}`);
    const handles = await Promise.all(ids.map((sessionId) => executor.execute(agent, 'record everything', { sessionId })));
    const results = Promise.all(handles.map((handle) => handle.result()));
    const killer = new pg.Client({ connectionString: server.url });
    killer.on('error', () => undefined);
    await killer.connect();
    let killed = 0;
    const until = Date.now() + 2_000;
    while (Date.now() < until) {
      const { rows } = await killer.query<{ n: string }>(
        "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'",
      );
      killed += Number(rows[0]?.n ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    await killer.end();
    expect(killed).toBeGreaterThan(10);
    await expectAllCompletedOnce(ids, await results);
  }, 120_000);
});

async function expectAllCompletedOnce(ids: string[], settled: AgentResult[]): Promise<void> {
    expect(settled.map((result) => [result.status, result.output])).toEqual(ids.map(() => ['completed', 'all recorded']));
    for (const sessionId of ids) {
      const { runs } = await stateStore.listRuns(sessionId);
      expect(runs.map((run) => run.status)).toEqual(['completed']);
      const { messages } = await stateStore.getMessages(sessionId, { limit: 1_000 });
      expect(messages).toHaveLength(2 + 2 * STEPS);
      expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
      const rows = await pool.query<{ tool_call_id: string; count: string }>(
        'SELECT tool_call_id, count(*) FROM outage_tool_rows WHERE session_id = $1 GROUP BY tool_call_id',
        [sessionId],
      );
      expect(rows.rows).toHaveLength(STEPS);
      expect(rows.rows.every((row) => row.count === '1')).toBe(true);
      const chunks = (await readStream(streamManager, sessionId)).map((chunk) => chunk.type);
      expect(chunks.filter((type) => type === 'output')).toHaveLength(1);
      expect(chunks.filter((type) => type === 'error')).toHaveLength(0);
      expect(chunks.filter((type) => type === 'tool_start')).toHaveLength(STEPS);
    }
}

async function waitForRows(count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM outage_tool_rows')).rows[0]?.n ?? 0) < count) {
    if (Date.now() > deadline) throw new Error('the runs never got going');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
