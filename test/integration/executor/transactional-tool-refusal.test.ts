/**
 * A transactional tool is refused loudly where it cannot work: an executor without `appDatabase` refuses to run an
 * agent (or a sub-agent tree) with one before anything is stored, a recovered call fails with the same typed error,
 * and an `appDatabase` registered after `DBOS.launch()` is refused at construction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSubAgentTool, defineAgent, defineTransactionalTool } from '../../../src/agent/index.js';
import { ConfigurationError } from '../../../src/errors/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { TransactionalToolStep } from '../../../src/steps/transactional-tool.step.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from './executor-test-kit.js';

const placeOrder = defineTransactionalTool({
  name: 'place_order',
  description: 'Place an order',
  parameters: z.object({ sku: z.string() }),
  execute: async ({ sku }, { client }) => (await client.query('SELECT $1::text AS sku', [sku])).rows[0],
});
const agent = defineAgent({ name: 'refused_shop', systemPrompt: 'Order.', tools: [placeOrder] });
const child = defineAgent({ name: 'refused_buyer', systemPrompt: 'Buy.', tools: [placeOrder], outputSchema: z.object({ ok: z.boolean() }) });
const parent = defineAgent({ name: 'refused_planner', systemPrompt: 'Plan.', tools: [createSubAgentTool(child, z.object({ item: z.string() }))] });

const llm = scriptedLLM();
let runtime: TestRuntime;

beforeAll(async () => {
  runtime = await startTestRuntime('executor_txtools_refusal', llm.adapter);
}, 60_000);

afterAll(async () => {
  await runtime?.shutdown();
});

async function refusal(run: () => Promise<unknown>): Promise<ConfigurationError> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ConfigurationError.isInstance(error)) throw new Error(`expected a ConfigurationError, got ${String(error)}`);
  return error;
}

describe('transactional tools without an app database', () => {
  it('execute() refuses the agent and its parents with APP_DATABASE_NOT_CONFIGURED; nothing is stored', async () => {
    llm.use(() => ({ type: 'text', text: 'never asked' }));
    const direct = await refusal(() => runtime.executor.execute(agent, 'order', { sessionId: 'refused-direct' }));
    expect(direct).toMatchObject({ code: 'APP_DATABASE_NOT_CONFIGURED', data: { toolName: 'place_order' } });
    expect(direct.message).toContain('appDatabase');
    const nested = await refusal(() => runtime.executor.execute(parent, 'plan', { sessionId: 'refused-nested' }));
    expect(nested.code).toBe('APP_DATABASE_NOT_CONFIGURED');

    expect(await runtime.stateStore.loadState('refused-direct')).toBeNull();
    expect(await runtime.stateStore.loadState('refused-nested')).toBeNull();
    expect(llm.adapter.calls).toHaveLength(0);
  });

  it('a call reaching the step (a recovering process) fails with the same typed error, not a silent fallback', async () => {
    const call = { toolCallId: 'c1', toolName: 'place_order', input: { sku: 'a' }, index: 0, resultMessageId: 'm1' };
    const scope = { sessionId: 's', runId: 'r', agentType: agent.name, workflowId: 'w', streamId: 's' };
    const error = await refusal(() => TransactionalToolStep.execute({ ...scope, step: 1, call, phase: 1 } as never));
    expect(error.code).toBe('APP_DATABASE_NOT_CONFIGURED');
  });

  it('an appDatabase given after DBOS.launch() is refused at construction (APP_DATABASE_AFTER_LAUNCH)', async () => {
    const construct = async () =>
      new DBOSAgentExecutor({
        stateStore: runtime.stateStore,
        streamManager: runtime.streamManager,
        llmAdapter: llm.adapter,
        appDatabase: { connectionString: runtime.database.url },
      });
    const error = await refusal(construct);
    expect(error.code).toBe('APP_DATABASE_AFTER_LAUNCH');
    expect(error.message).toContain('before DBOS.launch()');
    // Still refused afterwards: the failed construction bound nothing.
    expect((await refusal(() => runtime.executor.execute(agent, 'order', { sessionId: 'refused-later' }))).code).toBe('APP_DATABASE_NOT_CONFIGURED');
  });

  it('an appDatabase without pool or connection string is refused', async () => {
    const error = await refusal(async () => new DBOSAgentExecutor({ stateStore: runtime.stateStore, streamManager: runtime.streamManager, llmAdapter: llm.adapter, appDatabase: {} }));
    expect(error.code).toBe('APP_DATABASE_NOT_CONFIGURED');
  });
});
