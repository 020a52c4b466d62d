/**
 * A store and streams on another database than DBOS's system database: on the fused journal no write can join a
 * step's record, so every step commits on its own and tool writes are staged; on the public journal a step's writes
 * join a transaction of the store (the same-database case is in step-cost.test.ts).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { activeJournal } from '../../../src/journal/journal.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

const llm = new MockLLMAdapter((_input, callIndex) =>
  callIndex % 3 < 2 ? { type: 'tool_calls', toolCalls: [{ id: `c${callIndex + 1}`, name: 'count', arguments: {} }] } : { type: 'text', text: 'done' },
);
const count = defineTool({
  name: 'count',
  description: 'Adds one to the counter.',
  parameters: z.object({}),
  execute: async (_input, context) => {
    context.updateState((draft) => {
      draft.count = (draft.count as number) + 1;
    });
    return { ok: true };
  },
});
const separateAgent = defineAgent({ name: 'separate_db_counter', systemPrompt: 'Count.', tools: [count], stateSchema: z.object({ count: z.number().default(0) }) });

let system: TestDatabase;
let other: TestDatabase;
const stores: PostgresStateStore[] = [];
const streams: PostgresStreamManager[] = [];
let separate: DBOSAgentExecutor;

beforeAll(async () => {
  [system, other] = await Promise.all([createTestDatabase('step_record_system'), createTestDatabase('step_record_other')]);
  const executorOn = async (url: string): Promise<DBOSAgentExecutor> => {
    const stateStore = new PostgresStateStore({ connectionString: url });
    await stateStore.migrate();
    const streamManager = new PostgresStreamManager({ connectionString: url });
    stores.push(stateStore);
    streams.push(streamManager);
    return new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: llm });
  };
  separate = await executorOn(other.url);
  DBOS.setConfig({ name: 'helix-test', systemDatabaseUrl: system.url, applicationVersion: 'test', logLevel: 'warn' });
  await DBOS.launch();
}, 60_000);

afterAll(async () => {
  await DBOS.shutdown();
  await Promise.allSettled([...stores.map((store) => store.close()), ...streams.map((stream) => stream.close())]);
  await Promise.allSettled([system?.drop(), other?.drop()]);
});

/** Count calls of the store's separate commit and staging while `body` runs. */
async function countingWrites<T>(store: SessionStateStore, body: () => Promise<T>): Promise<{ value: T; commits: number; staged: number }> {
  const commit = store.saveStateAndPromoteStaging.bind(store);
  const stage = store.stageChanges.bind(store);
  const counts = { commits: 0, staged: 0 };
  store.saveStateAndPromoteStaging = (...args) => ((counts.commits += 1), commit(...args));
  store.stageChanges = (...args) => ((counts.staged += 1), stage(...args));
  try {
    return { value: await body(), ...counts };
  } finally {
    store.saveStateAndPromoteStaging = commit;
    store.stageChanges = stage;
  }
}

describe('a store on another database than DBOS', () => {
  it('fused journal: commits every step on its own and stages tool writes; public: the steps’ writes join a transaction of the store; the same session either way', async () => {
    llm.reset();
    const store = stores[0]!;
    const { value: result, commits, staged } = await countingWrites(store, async () => (await separate.execute(separateAgent, 'Count twice.', { sessionId: 'separate-1' })).result());
    expect(result).toMatchObject({ status: 'completed', stepCount: 3 });
    // Fused: nothing joins DBOS's record (another database). Public: each step's writes commit in one transaction of
    // the store (the public journal’s batch record), so the sole tool call commits its step there, unstaged.
    expect({ commits, staged }).toEqual(activeJournal() === 'fused' ? { commits: 3, staged: 2 } : { commits: 0, staged: 0 });
    expect((await store.loadState('separate-1'))?.customState).toEqual({ count: 2 });
    expect((await store.getMessages('separate-1')).messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  });
});
