import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { activeJournal, runJournaledStep } from '../../../src/journal/journal.js';
import type { LLMGenerateInput } from '../../../src/types/llm.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

type Script = (input: LLMGenerateInput, callIndex: number) => MockLLMResponse;
let script: Script = () => ({ type: 'text', text: 'unset' });
const llm = new MockLLMAdapter((input, callIndex) => script(input, callIndex));

let toolDelayMs = 0;
const count = defineTool({
  name: 'count',
  description: 'Adds one to the counter.',
  parameters: z.object({}),
  execute: async (_input, context) => {
    if (toolDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, toolDelayMs));
    context.updateState((draft) => {
      draft.count = (draft.count as number) + 1;
    });
    return { ok: true };
  },
});
const counter = defineAgent({
  name: 'step_cost_counter',
  systemPrompt: 'Count.',
  tools: [count],
  stateSchema: z.object({ count: z.number().default(0) }),
  maxSteps: 10,
});

/** Calls `count` on the first `toolSteps` LLM calls, then answers. */
function countingScript(toolSteps: number): Script {
  return (_input, callIndex) => (callIndex < toolSteps ? { type: 'tool_calls', toolCalls: [{ id: `c${callIndex + 1}`, name: 'count', arguments: {} }] } : { type: 'text', text: 'done' });
}

/** A workflow of two lean steps whose bodies count their runs (the second can be made to fail). */
const leanRuns = { first: 0, second: 0 };
let secondFails = false;
class LeanStepWorkflows {
  @DBOS.workflow({ name: 'test.leanSteps' })
  static async run(): Promise<string> {
    const first = await runJournaledStep('LeanFirst', () => Promise.resolve({ value: `first-${(leanRuns.first += 1)}`, dropped: undefined }));
    const second = await runJournaledStep('LeanSecond', () => {
      leanRuns.second += 1;
      return secondFails ? Promise.reject(new Error('second failed')) : Promise.resolve(`second-${leanRuns.second}`);
    }).catch((error: unknown) => (error instanceof Error ? `caught: ${error.message}` : 'caught'));
    return `${first.value}|${'dropped' in first ? 'kept-undefined' : 'no-undefined'}|${second}`;
  }
}

let runtime: TestRuntime;
let pool: pg.Pool;
beforeAll(async () => {
  void LeanStepWorkflows;
  runtime = await startTestRuntime('executor_step_cost', llm);
  pool = new pg.Pool({ connectionString: runtime.database.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await runtime?.shutdown();
});

async function stepNames(workflowId: string): Promise<string[]> {
  const { rows } = await pool.query<{ function_name: string }>('SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id', [workflowId]);
  return rows.map((row) => row.function_name);
}

describe('the cost of an agent step', () => {
  it('records two DBOS steps per agent step (the commit rides in the next LLM step or the finish) and commits every step', async () => {
    script = countingScript(3);
    llm.reset();
    const loadState = runtime.stateStore.loadState.bind(runtime.stateStore);
    let loads = 0;
    runtime.stateStore.loadState = (...args) => {
      loads += 1;
      return loadState(...args);
    };
    const handle = await runtime.executor.execute(counter, 'Count to three.', { sessionId: 'cost-1' });
    const result = await handle.result().finally(() => (runtime.stateStore.loadState = loadState));
    // Of the steps only the first LLM step reads the session (execute() and result() look once each): later LLM
    // steps take it from the commit's report, the tools from their LLM step (was one read per LLM step and one per
    // tool: 7 more).
    expect(loads).toBeLessThanOrEqual(3);
    expect(result).toMatchObject({ status: 'completed', stepCount: 4 });
    // Every step is a DBOS row, named for the operator (fused: the three tool steps' rows commit with their agent steps).
    const tools = ['CallLLMStep', 'ExecuteToolStep:count'];
    expect(await stepNames(handle.workflowId)).toEqual(['BeginRunStep', ...tools, ...tools, ...tools, 'CallLLMStep', 'FinishRunStep']);
    const state = await runtime.stateStore.loadState('cost-1');
    expect(state?.customState).toEqual({ count: 3 });
    expect(state?.checkpointId).toBe(`${result.runId}:4`);
    for (const step of [1, 2, 3, 4]) expect(await runtime.stateStore.getCheckpoint('cost-1', `${result.runId}:${step}`)).not.toBeNull();
    // The history the LLM saw at each step is the committed one: step n's tool result is in call n + 1's input.
    const inputs = llm.calls.map((call) => call.messages.filter((message) => message.role === 'tool').length);
    expect(inputs).toEqual([0, 1, 2, 3]);
    const { messages } = await runtime.stateStore.getMessages('cost-1');
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  });

  it('reads a lean step’s recorded outcome only where a replay is possible: once per execution, then each step follows its own record', async () => {
    script = countingScript(3);
    llm.reset();
    const pool = DBOSExecutor.globalInstance!.systemDatabase.pool;
    const query = pool.query.bind(pool);
    let reads = 0;
    pool.query = ((...args: Parameters<typeof query>) => {
      // A statement's text, or its config's (statements run named: `{ name, text, values }`).
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text;
      if (typeof text === 'string' && text.includes('max_function_id')) reads += 1;
      return query(...args);
    }) as typeof pool.query;
    try {
      const handle = await runtime.executor.execute(counter, 'Count to three.', { sessionId: 'cost-reads' });
      expect(await handle.result()).toMatchObject({ status: 'completed', stepCount: 4 });
    } finally {
      pool.query = query;
    }
    // Fused: seven lean steps (four LLM calls, three tools): the first reads (and learns nothing is recorded above
    // it), the six after it each directly follow their own predecessor's record. Public: DBOS.runStep finds its own
    // record, nothing reads the frontier.
    expect(reads).toBe(activeJournal() === 'fused' ? 1 : 0);
    expect(llm.calls).toHaveLength(4);
  });

  it('commits a step whose only work is one tool call in that tool step’s record (no separate commit, nothing staged), on either journal', async () => {
    script = countingScript(2);
    llm.reset();
    const store = runtime.stateStore;
    const commit = store.saveStateAndPromoteStaging.bind(store);
    const stage = store.stageChanges.bind(store);
    const counts = { commits: 0, staged: 0 };
    store.saveStateAndPromoteStaging = (...args) => ((counts.commits += 1), commit(...args));
    store.stageChanges = (...args) => ((counts.staged += 1), stage(...args));
    const handle = await runtime.executor.execute(counter, 'Count twice.', { sessionId: 'cost-shared' });
    const result = await handle.result().finally(() => {
      store.saveStateAndPromoteStaging = commit;
      store.stageChanges = stage;
    });
    expect(result).toMatchObject({ status: 'completed', stepCount: 3 });
    // Nothing commits on its own (each tool step's commit joins its record — fused: DBOS's row's transaction;
    // public: one transaction of the store before DBOS's row — and the final text step's joins FinishRunStep's), and
    // the tools' state writes were never staged.
    expect(counts).toEqual({ commits: 0, staged: 0 });
    expect((await store.loadState('cost-shared'))?.customState).toEqual({ count: 2 });
    for (const step of [1, 2, 3]) expect(await store.getCheckpoint('cost-shared', `${result.runId}:${step}`)).not.toBeNull();
    // Contiguous function ids, every step visible (fused: each tool step's row committed with its agent step).
    const { rows } = await pool.query<{ function_id: number; function_name: string }>(
      'SELECT function_id, function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id',
      [handle.workflowId],
    );
    expect(rows.map((row) => `${row.function_id}:${row.function_name}`)).toEqual(['0:BeginRunStep', '1:CallLLMStep', '2:ExecuteToolStep:count', '3:CallLLMStep', '4:ExecuteToolStep:count', '5:CallLLMStep', '6:FinishRunStep']);
    const chunks: string[] = [];
    for await (const chunk of await runtime.streamManager.createReader('cost-shared')) {
      if (chunk.type === 'tool_start' || chunk.type === 'tool_end' || chunk.type === 'state_patch') chunks.push(`${chunk.type}:${chunk.step}`);
    }
    expect(chunks).toEqual(['tool_start:1', 'state_patch:1', 'tool_end:1', 'tool_start:2', 'state_patch:2', 'tool_end:2']);
  });

  it('a local run’s result() reads no run record while the run is busy', async () => {
    script = countingScript(1);
    llm.reset();
    toolDelayMs = 1_500;
    const getRun = runtime.stateStore.getRun.bind(runtime.stateStore);
    let reads = 0;
    runtime.stateStore.getRun = (...args) => {
      reads += 1;
      return getRun(...args);
    };
    try {
      const handle = await runtime.executor.execute(counter, 'Count once, slowly.', { sessionId: 'cost-2' });
      const before = reads;
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', stepCount: 2 });
      // A poll every 100 ms would have read the run record ~15 times during the slow tool; what remains is the
      // handle's one look when result() is called and the run's own steps (BeginRunStep reads its run record).
      expect(reads - before).toBeLessThan(5);
    } finally {
      toolDelayMs = 0;
      runtime.stateStore.getRun = getRun;
    }
  });

  it('a lean step records its outcome once, replays it without running, and records a failure as the step’s outcome', async () => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- DBOS needs the registered method itself
    const handle = await DBOS.startWorkflow(LeanStepWorkflows.run, { workflowID: 'lean-1' })();
    // The recorded value is what a replay returns: a fresh run already sees it as DBOS's serializer round-trips it.
    expect(await handle.getResult()).toBe('first-1|kept-undefined|second-1');
    expect(await stepNames('lean-1')).toEqual(['LeanFirst', 'LeanSecond']);
    const { rows } = await pool.query<{ started: string; completed: string }>(
      'SELECT started_at_epoch_ms AS started, completed_at_epoch_ms AS completed FROM dbos.operation_outputs WHERE workflow_uuid = $1',
      ['lean-1'],
    );
    for (const row of rows) expect(Number(row.completed)).toBeGreaterThanOrEqual(Number(row.started));

    // A fork from the second step replays the first (its body does not run) and runs the second again.
    secondFails = true;
    const forked = await DBOS.forkWorkflow<string>('lean-1', 1, { newWorkflowID: 'lean-1-fork' });
    expect(await forked.getResult()).toBe('first-1|kept-undefined|caught: second failed');
    expect(leanRuns).toEqual({ first: 1, second: 2 });
    // The failure is the fork's recorded outcome: a second fork from after it replays the error without running.
    const again = await DBOS.forkWorkflow<string>('lean-1-fork', 2, { newWorkflowID: 'lean-1-fork-2' });
    secondFails = false;
    expect(await again.getResult()).toBe('first-1|kept-undefined|caught: second failed');
    expect(leanRuns).toEqual({ first: 1, second: 2 });
  });
});
