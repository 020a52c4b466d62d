/**
 * Transactional tools (`defineTransactionalTool`) on real DBOS and Postgres: the app database is its own
 * database, the tool writes through `context.client` inside the call's transaction. A failed attempt leaves no
 * row; a retry writes once; state updates and chunks keep parity with regular tools; a timed-out attempt is
 * rolled back; a concurrent duplicate execution of one operation replays the first committed outcome.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTransactionalTool } from '../../../src/agent/index.js';
import { AppTransactionScope } from '../../../src/database/app-transaction-scope.js';
import type { MockLLMScript } from '../../../src/llm/mock/mock-llm-response.js';
import { FaultProxy, postgresReplyComplete } from '../../support/fault-proxy.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';
import { collectChunks, scriptedLLM, toolResults } from './executor-test-kit.js';

const attemptsByCall = new Map<string, number>();
function nextAttempt(toolCallId: string): number {
  const attempt = (attemptsByCall.get(toolCallId) ?? 0) + 1;
  attemptsByCall.set(toolCallId, attempt);
  return attempt;
}

const placeOrder = defineTransactionalTool({
  name: 'place_order',
  description: 'Place an order',
  parameters: z.object({ sku: z.string(), failAttempts: z.number().int().default(0) }),
  execute: async ({ sku, failAttempts }, context) => {
    const attempt = nextAttempt(context.toolCallId);
    const { rows } = await context.client.query<{ id: number }>('INSERT INTO orders (call_id, sku, attempt) VALUES ($1, $2, $3) RETURNING id', [
      context.toolCallId,
      sku,
      attempt,
    ]);
    if (attempt <= failAttempts) throw new Error('warehouse offline');
    context.updateState((draft) => {
      (draft.orders as string[]).push(sku);
    });
    context.emit('order_placed', { sku });
    return { orderId: rows[0]?.id, attempt };
  },
});

const slowOrder = defineTransactionalTool({
  name: 'slow_order',
  description: 'Place an order slowly',
  parameters: z.object({ sku: z.string() }),
  timeoutMs: 200,
  execute: async ({ sku }, context) => {
    await context.client.query('INSERT INTO orders (call_id, sku, attempt) VALUES ($1, $2, 1)', [context.toolCallId, sku]);
    await context.client.query('SELECT pg_sleep(1)');
    return { sku };
  },
});

const checkout = defineTransactionalTool({
  name: 'checkout',
  description: 'Pay for the basket; ends the run with the receipt',
  parameters: z.object({ sku: z.string() }),
  finishWith: true,
  execute: async ({ sku }, context) => {
    const { rows } = await context.client.query<{ id: number }>('INSERT INTO orders (call_id, sku, attempt) VALUES ($1, $2, 1) RETURNING id', [context.toolCallId, sku]);
    return { receipt: rows[0]?.id, sku };
  },
});

const pay = defineTransactionalTool({
  name: 'pay',
  description: 'Pay; expensive items need the user to approve',
  parameters: z.object({ sku: z.string() }),
  requireApproval: ({ sku }) => sku === 'gold',
  execute: async ({ sku }, context) => {
    const { rows } = await context.client.query<{ id: number }>('INSERT INTO orders (call_id, sku, attempt) VALUES ($1, $2, 1) RETURNING id', [context.toolCallId, sku]);
    return { receipt: rows[0]?.id, sku };
  },
});

const agent = defineAgent({
  name: 'shop_agent',
  systemPrompt: 'Place orders.',
  tools: [placeOrder, slowOrder, checkout, pay],
  stateSchema: z.object({ orders: z.array(z.string()).default([]) }),
  maxSteps: 3,
});

const llm = scriptedLLM();
let appDatabase: TestDatabase;
let app: pg.Pool;
let runtime: TestRuntime;

beforeAll(async () => {
  appDatabase = await createTestDatabase('txtools_app');
  app = new pg.Pool({ connectionString: appDatabase.url, max: 4 });
  await app.query('CREATE TABLE orders (id serial PRIMARY KEY, call_id text NOT NULL, sku text NOT NULL, attempt int NOT NULL)');
  runtime = await startTestRuntime('executor_txtools', llm.adapter, {
    appDatabase: { pool: app }, // the app's own pool: the executor and DBOS.shutdown() leave it open
    toolRetryPolicy: { maxAttempts: 2, initialIntervalSeconds: 0.01, maximumIntervalSeconds: 0.01 },
  });
}, 60_000);

afterAll(async () => {
  await runtime?.shutdown();
  await app?.end();
  await appDatabase?.drop();
});

function callOnce(toolName: string, id: string, args: Record<string, unknown>): MockLLMScript {
  return (_input, callIndex) =>
    callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id, name: toolName, arguments: args }] } : callIndex === 1 ? { type: 'text', text: 'done' } : undefined;
}

async function ordersOf(callId: string): Promise<Array<{ id: number; sku: string; attempt: number }>> {
  const { rows } = await app.query<{ id: number; sku: string; attempt: number }>('SELECT id, sku, attempt FROM orders WHERE call_id = $1 ORDER BY id', [callId]);
  return rows;
}

describe('transactional tools', () => {
  it('commit the row, state, chunks and the result the model sees together; DBOS clears its completion rows at the end', async () => {
    llm.use(callOnce('place_order', 'tx-ok', { sku: 'apple' }));
    const handle = await runtime.executor.execute(agent, 'order an apple', { sessionId: 'tx-ok' });
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'completed', output: 'done' });
    const rows = await ordersOf('tx-ok');
    expect(rows).toEqual([{ id: expect.any(Number), sku: 'apple', attempt: 1 }]);
    expect(toolResults(llm.adapter.calls[1]!.messages)).toEqual([
      expect.objectContaining({ toolCallId: 'tx-ok', content: { orderId: rows[0]!.id, attempt: 1 } }),
    ]);
    expect((await runtime.stateStore.loadState('tx-ok'))?.customState).toEqual({ orders: ['apple'] });
    const chunks = await collectChunks(handle);
    expect(chunks.filter((chunk) => ['tool_start', 'custom', 'state_patch', 'tool_end'].includes(chunk.type)).map((chunk) => chunk.type)).toEqual([
      'tool_start',
      'custom',
      'state_patch',
      'tool_end',
    ]);
    const steps = await DBOS.listWorkflowSteps(handle.workflowId);
    expect(steps?.map((step) => step.name)).toContain('TransactionalToolStep');
    expect(steps?.filter((step) => step.name.startsWith('ExecuteToolStep'))).toEqual([]);
    const completions = await app.query('SELECT 1 FROM dbos.transaction_completion WHERE workflow_id = $1', [handle.workflowId]);
    expect(completions.rowCount).toBe(0);
  });

  it('parallel transactional calls of one step each commit in their own transaction', async () => {
    llm.use((_input, callIndex) =>
      callIndex === 0
        ? { type: 'tool_calls', toolCalls: [{ id: 'tx-par-1', name: 'place_order', arguments: { sku: 'lime' } }, { id: 'tx-par-2', name: 'place_order', arguments: { sku: 'lemon' } }] }
        : callIndex === 1
          ? { type: 'text', text: 'done' }
          : undefined,
    );
    const handle = await runtime.executor.execute(agent, 'order citrus', { sessionId: 'tx-par' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const [lime, lemon] = [await ordersOf('tx-par-1'), await ordersOf('tx-par-2')];
    expect(lime.map((row) => row.sku)).toEqual(['lime']);
    expect(lemon.map((row) => row.sku)).toEqual(['lemon']);
    expect(toolResults(llm.adapter.calls[1]!.messages).map((message) => message.content)).toEqual([
      { orderId: lime[0]!.id, attempt: 1 },
      { orderId: lemon[0]!.id, attempt: 1 },
    ]);
    expect((await runtime.stateStore.loadState('tx-par'))?.customState.orders).toEqual(expect.arrayContaining(['lime', 'lemon']));
    const steps = await DBOS.listWorkflowSteps(handle.workflowId);
    expect(steps?.filter((step) => step.name === 'TransactionalToolStep')).toHaveLength(2);
  });

  it('work in a persistent session turn too', async () => {
    llm.use(callOnce('place_order', 'tx-persistent', { sku: 'date' }));
    const turn = await runtime.executor.execute(agent, 'order a date', { sessionId: 'tx-persistent', mode: 'persistent' });
    expect(await turn.result()).toMatchObject({ status: 'completed', output: 'done' });
    const rows = await ordersOf('tx-persistent');
    expect(rows.map((row) => row.sku)).toEqual(['date']);
    expect(toolResults(llm.adapter.calls[1]!.messages)[0]).toMatchObject({ content: { orderId: rows[0]!.id, attempt: 1 } });
  });

  it('roll a failed attempt back: the retry writes the only row', async () => {
    llm.use(callOnce('place_order', 'tx-retry', { sku: 'pear', failAttempts: 1 }));
    const handle = await runtime.executor.execute(agent, 'order a pear', { sessionId: 'tx-retry' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });

    expect(attemptsByCall.get('tx-retry')).toBe(2);
    expect(await ordersOf('tx-retry')).toEqual([{ id: expect.any(Number), sku: 'pear', attempt: 2 }]);
    expect(toolResults(llm.adapter.calls[1]!.messages)[0]).toMatchObject({ content: { attempt: 2 } });
  });

  it('a tool that fails every attempt leaves no row, no state change, and the model gets the error', async () => {
    llm.use(callOnce('place_order', 'tx-fail', { sku: 'plum', failAttempts: 5 }));
    const handle = await runtime.executor.execute(agent, 'order a plum', { sessionId: 'tx-fail' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });

    expect(attemptsByCall.get('tx-fail')).toBe(2);
    expect(await ordersOf('tx-fail')).toEqual([]);
    expect((await runtime.stateStore.loadState('tx-fail'))?.customState).toEqual({ orders: [] });
    expect(toolResults(llm.adapter.calls[1]!.messages)[0]).toMatchObject({ isError: true, content: expect.stringContaining('warehouse offline') });
  });

  it('a timed-out attempt is rolled back even though its query was still running', async () => {
    llm.use(callOnce('slow_order', 'tx-slow', { sku: 'fig' }));
    const handle = await runtime.executor.execute(agent, 'order a fig', { sessionId: 'tx-slow' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });

    expect(await ordersOf('tx-slow')).toEqual([]);
    expect(toolResults(llm.adapter.calls[1]!.messages)[0]).toMatchObject({ isError: true, content: expect.stringContaining('did not finish within 200 ms') });
  });
});

describe('transactional tools with finishWith and requireApproval', () => {
  it('a finishWith transactional tool ends the run with its committed result', async () => {
    llm.use(callOnce('checkout', 'tx-finish', { sku: 'kiwi' }));
    const result = await (await runtime.executor.execute(agent, 'check out', { sessionId: 'tx-finish' })).result();
    const rows = await ordersOf('tx-finish');
    expect(rows).toHaveLength(1);
    expect(result).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { receipt: rows[0]!.id, sku: 'kiwi' } });
  });

  it('an approval-gated transactional tool writes nothing until approved, then exactly once', async () => {
    llm.use(callOnce('pay', 'tx-gated', { sku: 'gold' }));
    const handle = await runtime.executor.execute(agent, 'check out gold', { sessionId: 'tx-gated' });
    const waiting = await handle.result();
    expect(waiting).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: ['tx-gated'] } });
    expect(await ordersOf('tx-gated')).toEqual([]);

    const submitted = await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: 'tx-gated', toolCallId: 'tx-gated', approvalId: 'tx-gated', approved: true });
    expect(submitted.status).toBe('accepted');
    const done = await (await runtime.executor.getHandle(agent, 'tx-gated'))!.result();
    const rows = await ordersOf('tx-gated');
    expect(rows).toHaveLength(1);
    expect(done).toMatchObject({ status: 'completed', output: 'done' });
    expect(toolResults(llm.adapter.calls[1]!.messages)[0]).toMatchObject({ toolCallId: 'tx-gated', content: { receipt: rows[0]!.id, sku: 'gold' } });
  });
});

describe('the app transaction scope (DBOSStepAlreadyRecordedError path)', () => {
  it('a concurrent duplicate execution rolls its writes back and returns the outcome the first committer recorded', async () => {
    const key = { workflowId: 'wf-duplicate', stepId: 7 };
    const slow = new AppTransactionScope(app, 'dbos', key);
    const fast = new AppTransactionScope(app, 'dbos', key);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const slowInserted = new Promise<void>((resolve) => (inserted = resolve));

    const slowResult = slow.commit(async (client) => {
      await client.query("INSERT INTO orders (call_id, sku, attempt) VALUES ('dup', 'slow', 1)");
      inserted();
      await gate;
      return { winner: 'slow' };
    });
    await slowInserted;
    const fastResult = await fast.commit(async (client) => {
      await client.query("INSERT INTO orders (call_id, sku, attempt) VALUES ('dup', 'fast', 1)");
      return { winner: 'fast' };
    });
    release();

    expect(fastResult).toEqual({ winner: 'fast' });
    expect(await slowResult).toEqual({ winner: 'fast' });
    expect((await ordersOf('dup')).map((row) => row.sku)).toEqual(['fast']);
    expect(await new AppTransactionScope(app, 'dbos', key).recorded()).toEqual({ value: { winner: 'fast' } });
    const later = await new AppTransactionScope(app, 'dbos', key).commit(async () => ({ winner: 'late' }));
    expect(later).toEqual({ winner: 'fast' });
  });

  it('a COMMIT whose reply is lost is not applied twice: the re-run conflicts on the completion row and returns the committed value', async () => {
    const proxy = await FaultProxy.start(Number(new URL(appDatabase.url).port));
    const viaProxy = new URL(appDatabase.url);
    viaProxy.port = String(proxy.port);
    const flaky = new pg.Pool({ connectionString: viaProxy.toString(), max: 2 });
    flaky.on('error', () => undefined);
    try {
      let runs = 0;
      proxy.dropReplyTo('COMMIT', postgresReplyComplete);
      const value = await new AppTransactionScope(flaky, 'dbos', { workflowId: 'wf-lost-commit', stepId: 4 }).commit(async (client) => {
        runs += 1;
        await client.query("INSERT INTO orders (call_id, sku, attempt) VALUES ('lost', 'x', $1)", [runs]);
        return { run: runs };
      });
      expect(proxy.dropped).toBe(1);
      expect(runs).toBe(2);
      expect(value).toEqual({ run: 1 });
      expect((await ordersOf('lost')).map((row) => row.attempt)).toEqual([1]);
    } finally {
      await flaky.end();
      await proxy.close();
    }
  });

  it('refuses a query after the transaction ended and a tool that commits by itself', async () => {
    const scope = new AppTransactionScope(app, 'dbos', { workflowId: 'wf-guard', stepId: 1 });
    let leaked: { query: (text: string) => Promise<unknown> } | undefined;
    await scope.commit(async (client) => {
      leaked = client;
      return 1;
    });
    await expect(leaked!.query("INSERT INTO orders (call_id, sku, attempt) VALUES ('leak', 'x', 1)")).rejects.toThrow(/transaction has ended/);

    const rogue = new AppTransactionScope(app, 'dbos', { workflowId: 'wf-guard', stepId: 2 });
    await expect(
      rogue.commit(async (client) => {
        await client.query('COMMIT');
        return 1;
      }),
    ).rejects.toThrow(/ended the transaction itself/);
    expect(await rogue.recorded()).toBeUndefined();
    expect(await ordersOf('leak')).toEqual([]);
  });
});
