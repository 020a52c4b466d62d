/**
 * Graceful drain: `executor.close({ drain: true })` lets the step in flight finish and holds the run at its next step
 * boundary; after `DBOS.shutdown()`, `FleetMember.handOver()` re-enqueues it, and a process launched afterwards (here:
 * DBOS launched again) continues it from its recorded steps — the finished tool does not run again.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { FleetMember } from '../../../src/fleet/fleet-member.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM, sleep } from '../executor/executor-test-kit.js';

const llm = scriptedLLM();
let toolRuns = 0;
let toolStarted: () => void = () => undefined;
const slowTool = defineTool({
  name: 'slow_lookup',
  description: 'Looks something up slowly.',
  parameters: z.object({}),
  execute: async () => {
    toolRuns += 1;
    toolStarted();
    await sleep(300);
    return { found: true };
  },
});
const agent = defineAgent({ name: 'drained_agent', systemPrompt: 'Look it up.', tools: [slowTool], maxSteps: 3 });

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('fleet_drain', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('draining a process', () => {
  it('holds a run after its step in flight, hands it over, and another launch finishes it without re-running the tool', async () => {
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'call-1', name: 'slow_lookup', arguments: {} }] } : { type: 'text', text: 'Found it.' }));
    const member = await FleetMember.join({ systemDatabaseUrl: runtime.database.url, executorId: DBOS.executorID });
    const started = new Promise<void>((resolve) => (toolStarted = resolve));
    const handle = await runtime.executor.execute(agent, 'Find it.', { sessionId: 'drained-1' });
    await started;
    await runtime.executor.close({ drain: true, timeoutMs: 10_000 });
    // The tool's step finished and is recorded; the model was not called again: the run holds, PENDING.
    const steps = (await DBOS.listWorkflowSteps(handle.workflowId)) ?? [];
    expect(steps.map((step) => step.name)).toEqual(['BeginRunStep', 'CallLLMStep', 'ExecuteToolStep:slow_lookup']);
    expect((await DBOS.getWorkflowStatus(handle.workflowId))?.status).toBe('PENDING');
    expect(llm.adapter.callCount).toBe(1);
    await DBOS.shutdown();
    expect(await member.handOver()).toBe(1);
    await member.leave();
    // Handed over: back on a queue for whichever process dequeues it (not left PENDING for this executor id's recovery).
    const admin = new pg.Client({ connectionString: runtime.database.url });
    await admin.connect();
    const { rows } = await admin.query<{ status: string }>('SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1', [handle.workflowId]);
    await admin.end();
    expect(rows[0]?.status).toBe('ENQUEUED');

    // The next process: DBOS launched again, with a new executor; the handed-over run is dequeued and finished.
    new DBOSAgentExecutor({ stateStore: runtime.stateStore, streamManager: runtime.streamManager, usageStore: runtime.usageStore, llmAdapter: llm.adapter });
    await DBOS.launch();
    const result = await DBOS.retrieveWorkflow<{ status: string; output?: unknown }>(handle.workflowId).getResult();
    expect(result).toMatchObject({ status: 'completed', output: 'Found it.' });
    expect(toolRuns).toBe(1);
    expect(llm.adapter.callCount).toBe(2);
    const { messages } = await runtime.stateStore.getMessages('drained-1');
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});
