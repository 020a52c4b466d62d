import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createSubAgentTool, defineAgent } from '../../../src/agent/index.js';
import { ConfigurationError, InvalidArgumentError } from '../../../src/errors/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM, textOf } from './executor-test-kit.js';

const llm = scriptedLLM();
const queued = defineAgent({ name: 'queued_chat', systemPrompt: 'Chat.', queue: 'agents' });
const inPlace = defineAgent({ name: 'in_place_chat', systemPrompt: 'Chat.' });
const tenants = defineAgent({ name: 'tenant_chat', systemPrompt: 'Chat.', queue: 'tenants' });
const cached = defineAgent({ name: 'cached_queue_chat', systemPrompt: 'Chat.', queue: 'cached' });
const burst = defineAgent({ name: 'burst_queue_chat', systemPrompt: 'Chat.', queue: 'burst' });
const lost = defineAgent({ name: 'lost_chat', systemPrompt: 'Chat.', queue: 'nobody_registered_this' });
const researcher = defineAgent({ name: 'queued_researcher', systemPrompt: 'Research.', queue: 'children', outputSchema: z.object({ found: z.string() }) });
const planner = defineAgent({
  name: 'queued_planner',
  systemPrompt: 'Plan.',
  queue: 'agents',
  tools: [createSubAgentTool(researcher, z.object({ topic: z.string() }), { description: 'Research a topic.' })],
});

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('queued_runs', llm.adapter);
  await DBOS.registerQueue('agents', { minPollingIntervalMs: 20 });
  await DBOS.registerQueue('children', { minPollingIntervalMs: 20 });
  await DBOS.registerQueue('tenants', { minPollingIntervalMs: 20, partitionConcurrency: 1 });
  await DBOS.registerQueue('cached', { minPollingIntervalMs: 20 });
  await DBOS.registerQueue('burst', { minPollingIntervalMs: 20 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

const answer = (text: string) => () => ({ type: 'text' as const, text });
const refusedWith = (code: string) => (error: unknown) => (ConfigurationError.isInstance(error) || InvalidArgumentError.isInstance(error)) && error.code === code;

describe('queued runs', () => {
  it("enqueues an agent's run on its queue with the call's priority; the caller streams and awaits it as a local run", async () => {
    llm.use(answer('From the queue.'));
    const handle = await runtime.executor.execute(queued, 'Hi.', { sessionId: 'queued-1', priority: 3 });
    const [chunks, result] = await Promise.all([collectChunks(handle), handle.result()]);
    expect(result.status).toBe('completed');
    expect(textOf(chunks)).toBe('From the queue.');
    const status = await DBOS.getWorkflowStatus(handle.workflowId);
    expect(status?.queueName).toBe('agents');
    expect(status?.priority).toBe(3);
  });

  it("reads a queue's registration once for the starts of a second, and a queued run's result with its end (ended runs only, no second read)", async () => {
    llm.use(answer('Cached.'));
    const registrations = vi.spyOn(DBOS, 'retrieveQueue');
    const results = vi.spyOn(DBOS, 'retrieveWorkflow');
    const watched = vi.spyOn(DBOS, 'listWorkflows');
    try {
      const first = await runtime.executor.execute(cached, 'Hi.', { sessionId: 'cached-1' });
      const second = await runtime.executor.execute(cached, 'Hi.', { sessionId: 'cached-2' });
      expect(registrations.mock.calls.filter(([name]) => name === 'cached')).toHaveLength(1);
      const [one, two] = await Promise.all([first.result(), second.result()]);
      expect([one.status, one.output, two.status, two.output]).toEqual(['completed', 'Cached.', 'completed', 'Cached.']);
      expect(textOf(await collectChunks(first))).toBe('Cached.');
      const read = results.mock.calls.map(([id]) => id);
      expect(read).not.toContain(first.workflowId);
      expect(read).not.toContain(second.workflowId);
      // The shared watch asks for the ended ones among the awaited runs only.
      const polls = watched.mock.calls.filter(([input]) => input.workflowIDs?.includes(first.workflowId) === true);
      expect(polls.length).toBeGreaterThan(0);
      expect(polls.map(([input]) => input.status)).toEqual(polls.map(() => ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED']));
    } finally {
      registrations.mockRestore();
      results.mockRestore();
      watched.mockRestore();
    }
  });

  it("reads a queue's registration once for a burst of concurrent starts", async () => {
    llm.use(answer('Burst.'));
    const registrations = vi.spyOn(DBOS, 'retrieveQueue');
    try {
      const handles = await Promise.all([1, 2, 3, 4].map((index) => runtime.executor.execute(burst, 'Hi.', { sessionId: `burst-${index}` })));
      expect(registrations.mock.calls.filter(([name]) => name === 'burst')).toHaveLength(1);
      expect((await Promise.all(handles.map((handle) => handle.result()))).map((result) => result.status)).toEqual(handles.map(() => 'completed'));
    } finally {
      registrations.mockRestore();
    }
  });

  it("awaits a queued run's end by its stream's end hint: a few DBOS status queries, not one every 2 ms", async () => {
    llm.use(() => ({ type: 'text' as const, text: 'Slowly.', delayMs: 400 }));
    const watched = vi.spyOn(DBOS, 'listWorkflows');
    try {
      const handle = await runtime.executor.execute(queued, 'Take your time.', { sessionId: 'queued-slow' });
      const started = performance.now();
      const result = await handle.result();
      const waitedMs = performance.now() - started;
      expect([result.status, result.output]).toEqual(['completed', 'Slowly.']);
      const polls = watched.mock.calls.filter(([input]) => input.workflowIDs?.includes(handle.workflowId) === true);
      // At least 400 ms of model call: every 20 ms with the hint (and a few after the stream's end), against every
      // 2 ms without it.
      expect(waitedMs).toBeGreaterThan(400);
      expect(polls.length).toBeGreaterThan(2);
      expect(polls.length).toBeLessThan(waitedMs / 10);
    } finally {
      watched.mockRestore();
    }
  });

  it('runs a second turn and a retry on the queue too', async () => {
    llm.use(answer('Again.'));
    const second = await runtime.executor.execute(queued, 'Once more.', { sessionId: 'queued-1' });
    expect((await second.result()).status).toBe('completed');
    expect((await DBOS.getWorkflowStatus(second.workflowId))?.queueName).toBe('agents');
    llm.use(() => undefined); // no answer: the run fails
    const failing = await runtime.executor.execute(queued, 'Fail.', { sessionId: 'queued-2' });
    expect((await failing.result()).status).toBe('failed');
    llm.use(answer('Recovered.'));
    const retried = await runtime.executor.retry(queued, 'queued-2');
    expect((await retried.result()).status).toBe('completed');
    expect((await DBOS.getWorkflowStatus(retried.workflowId))?.queueName).toBe('agents');
  });

  it("puts a run on its partition of a partitioned queue and refuses a missing or stray partition key, writing nothing", async () => {
    llm.use(answer('Tenant answer.'));
    const handle = await runtime.executor.execute(tenants, 'Hi.', { sessionId: 'tenant-1', partitionKey: 'tenant-a' });
    expect((await handle.result()).status).toBe('completed');
    expect((await DBOS.getWorkflowStatus(handle.workflowId))?.queuePartitionKey).toBe('tenant-a');
    await expect(runtime.executor.execute(tenants, 'Hi.', { sessionId: 'tenant-2' })).rejects.toSatisfy(refusedWith('INVALID_ARGUMENT'));
    await expect(runtime.executor.execute(queued, 'Hi.', { sessionId: 'tenant-3', partitionKey: 'tenant-a' })).rejects.toSatisfy(refusedWith('INVALID_ARGUMENT'));
    expect(await runtime.stateStore.loadState('tenant-2')).toBeNull();
    expect(await runtime.stateStore.loadState('tenant-3')).toBeNull();
  });

  it("makes the caller's user the partition of a partitioned queue, and a later turn or retry keep the session's", async () => {
    llm.use(answer('Tenant answer.'));
    const first = await runtime.executor.execute(tenants, 'Hi.', { sessionId: 'tenant-4', userId: 'tenant-b' });
    expect((await first.result()).status).toBe('completed');
    llm.use(() => undefined); // no answer: the second turn fails
    const second = await runtime.executor.execute(tenants, 'Again.', { sessionId: 'tenant-4' });
    expect((await second.result()).status).toBe('failed');
    llm.use(answer('Tenant answer.'));
    const retried = await runtime.executor.retry(tenants, 'tenant-4');
    expect((await retried.result()).status).toBe('completed');
    for (const handle of [first, second, retried]) expect((await DBOS.getWorkflowStatus(handle.workflowId))?.queuePartitionKey).toBe('tenant-b');
  });

  it('refuses what a queued run cannot honour before writing anything', async () => {
    await expect(runtime.executor.execute(lost, 'Hi.', { sessionId: 'refused-1' })).rejects.toSatisfy(refusedWith('QUEUE_NOT_REGISTERED'));
    await expect(runtime.executor.execute(queued, 'Hi.', { sessionId: 'refused-2', hooks: { onAgentStart: () => undefined } })).rejects.toSatisfy(
      refusedWith('QUEUE_NOT_SUPPORTED'),
    );
    await expect(runtime.executor.execute(inPlace, 'Hi.', { sessionId: 'refused-4', priority: 1 })).rejects.toSatisfy(refusedWith('INVALID_ARGUMENT'));
    await expect(runtime.executor.execute(queued, 'Hi.', { sessionId: 'refused-5', priority: -1 })).rejects.toSatisfy(refusedWith('INVALID_ARGUMENT'));
    for (const sessionId of ['refused-1', 'refused-2', 'refused-4', 'refused-5']) expect(await runtime.stateStore.loadState(sessionId)).toBeNull();
  });

  it("enqueues a sub-agent child on its own agent's queue with its parent's priority", async () => {
    llm.use((input) => {
      const system = input.messages[0]?.role === 'system' ? String(input.messages[0].content) : '';
      const toolResults = input.messages.filter((message) => message.role === 'tool').length;
      if (system.startsWith('Research.')) return { type: 'tool_calls', toolCalls: [{ id: 'fin', name: '__finish__', arguments: { found: 'queues' } }] };
      if (toolResults === 0) return { type: 'tool_calls', toolCalls: [{ id: 'research-1', name: 'subagent__queued_researcher', arguments: { topic: 'fleets' } }] };
      return { type: 'text', text: 'Planned.' };
    });
    const handle = await runtime.executor.execute(planner, 'Plan it.', { sessionId: 'planner-1', priority: 2 });
    expect((await handle.result()).status).toBe('completed');
    const children = await DBOS.listWorkflows({ workflowName: 'helix.runAgent' });
    const child = children.find((workflow) => workflow.workflowID.startsWith('queued_researcher__planner-1-sub-research-1__'));
    expect(child?.queueName).toBe('children');
    expect(child?.priority).toBe(2);
    expect(child?.status).toBe('SUCCESS');
  });

  it("enqueues on the executor's default queue an agent that names none", async () => {
    llm.use(answer('Default queue.'));
    const executor = new DBOSAgentExecutor({ stateStore: runtime.stateStore, streamManager: runtime.streamManager, llmAdapter: llm.adapter, queue: 'agents' });
    const handle = await executor.execute(inPlace, 'Hi.', { sessionId: 'default-queue-1' });
    expect((await handle.result()).status).toBe('completed');
    expect((await DBOS.getWorkflowStatus(handle.workflowId))?.queueName).toBe('agents');
  });

  it('an executor without llmAdapter enqueues queued agents and refuses to run the others in place', async () => {
    llm.use(answer('Ran elsewhere.'));
    const enqueueOnly = new DBOSAgentExecutor({ stateStore: runtime.stateStore, streamManager: runtime.streamManager });
    await expect(enqueueOnly.execute(inPlace, 'Hi.', { sessionId: 'enqueue-only-1' })).rejects.toSatisfy(refusedWith('NO_LLM_ADAPTER'));
    expect(await runtime.stateStore.loadState('enqueue-only-1')).toBeNull();
    const handle = await enqueueOnly.execute(queued, 'Hi.', { sessionId: 'enqueue-only-2' });
    expect((await DBOS.getWorkflowStatus(handle.workflowId))?.queueName).toBe('agents');
    // Constructing it unbound this process's model: the run it enqueued fails loudly when it reaches its model step here.
    const result = await handle.result();
    expect(result.status).toBe('failed');
    expect(result.error).toContain('llmAdapter');
    // Give the process its model back for the tests after this one.
    new DBOSAgentExecutor({ stateStore: runtime.stateStore, streamManager: runtime.streamManager, llmAdapter: llm.adapter });
  });

  it('refuses malformed queue names when the agent or the executor is defined', () => {
    expect(() => defineAgent({ name: 'bad_queue', systemPrompt: 'x', queue: 'has space' })).toThrow(/queue must be a DBOS queue name/);
    expect(() => new DBOSAgentExecutor({ stateStore: runtime.stateStore, streamManager: runtime.streamManager, llmAdapter: llm.adapter, queue: '' })).toThrow(
      /queue must be a DBOS queue name/,
    );
  });

  it("enqueues a persistent session's generation on the agent's queue; its turns answer through the inbox", async () => {
    llm.use((input) => ({ type: 'text', text: `echo ${input.messages.filter((message) => message.role === 'user').length}` }));
    const first = await runtime.executor.execute(queued, 'One.', { sessionId: 'queued-persistent-1', mode: 'persistent' });
    expect(await first.result()).toMatchObject({ status: 'completed', output: 'echo 1' });
    const second = await runtime.executor.execute(queued, 'Two.', { sessionId: 'queued-persistent-1', mode: 'persistent' });
    expect(await second.result()).toMatchObject({ status: 'completed', output: 'echo 2' });
    const generations = await DBOS.listWorkflows({ workflowName: 'helix.runPersistentSession' });
    const ours = generations.filter((workflow) => workflow.workflowID.includes('queued-persistent-1'));
    expect(ours.length).toBeGreaterThan(0);
    expect(ours.map((workflow) => workflow.queueName)).toEqual(ours.map(() => 'agents'));
  });

  it("starts a companion on its own agent's queue", async () => {
    const companion = defineAgent({ name: 'queued_companion', systemPrompt: 'Help.', queue: 'children', outputSchema: z.object({ ok: z.boolean() }) });
    const boss = defineAgent({ name: 'queued_boss', systemPrompt: 'Delegate.', persistentAgents: [{ agent: companion, mode: 'blocking' }], maxSteps: 3 });
    llm.use((input, callIndex) => {
      if (input.agentType === 'queued_companion') return { type: 'structured_output', output: { ok: true } };
      return callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'spawn-1', name: 'companion__spawnAgent', arguments: { agentType: 'queued_companion', name: 'helper', message: 'go' } }] } : { type: 'text', text: 'Delegated.' };
    });
    const handle = await runtime.executor.execute(boss, 'Delegate it.', { sessionId: 'queued-boss-1' });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'Delegated.' });
    const generations = await DBOS.listWorkflows({ workflowName: 'helix.runPersistentSession' });
    const child = generations.find((workflow) => workflow.workflowID.startsWith('queued-boss-1-agent-helper'));
    expect(child?.queueName).toBe('children');
  });
});
