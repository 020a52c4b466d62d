/**
 * The step journal as a DBOS operator sees it, on the journal this suite runs with (`HELIX_JOURNAL`; CI runs both):
 * every agent step is a DBOS step under contiguous function ids with a readable name, mid-run and finished; each
 * run carries its journal stamp; a run without one (an older release's) is refused before any step and re-runs
 * nothing; the stuck-run repair then ends it.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { JournalFormatUnsupportedError } from '../../../src/errors/index.js';
import { JOURNAL_FORMAT } from '../../../src/journal/format.js';
import { activeJournal, journalFromEnvironment } from '../../../src/journal/journal.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { standardWorkflowId } from '../../../src/orchestration/ids.js';
import { AgentWorkflows, type AgentWorkflowInput } from '../../../src/workflows/agent.workflow.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

const TOOL_STEPS = 12;
let toolRuns = 0;
let gate: Promise<void> | undefined;
const search = defineTool({
  name: 'search',
  description: 'Searches.',
  parameters: z.object({ n: z.number() }),
  execute: async ({ n }) => {
    toolRuns += 1;
    if (n === 5 && gate !== undefined) await gate;
    return { hit: n };
  },
});
const researcher = defineAgent({ name: 'journal_researcher', systemPrompt: 'Research.', tools: [search], maxSteps: 20 });

const llm = new MockLLMAdapter((input) => {
  const done = input.messages.filter((message) => message.role === 'tool').length;
  return done < TOOL_STEPS ? { type: 'tool_calls', toolCalls: [{ id: `s${done + 1}`, name: 'search', arguments: { n: done + 1 } }] } : { type: 'text', text: 'found' };
});

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('step_journal', llm);
}, 60_000);
afterAll(async () => {
  await runtime?.shutdown();
});

async function stepList(workflowId: string): Promise<string[]> {
  const steps = (await DBOS.listWorkflowSteps(workflowId)) ?? [];
  return steps.map((step) => `${step.functionID}:${step.name}`);
}

describe('the step journal, as DBOS sees it', () => {
  it('lists every step of a 13-step run (12 tool calls) under contiguous ids, tool names visible, mid-run and finished', async () => {
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    toolRuns = 0;
    const handle = await runtime.executor.execute(researcher, 'Find it.', { sessionId: 'journal-1' });
    await expect.poll(() => toolRuns, { timeout: 15_000 }).toBe(5);
    // Four agent steps done, the fifth tool running: Begin, then LLM and tool rows for each finished step, then LLM 5.
    const midRun = await stepList(handle.workflowId);
    const step = (n: number): string[] => [`${2 * n - 1}:CallLLMStep`, `${2 * n}:ExecuteToolStep:search`];
    expect(midRun).toEqual(['0:BeginRunStep', ...[1, 2, 3, 4].flatMap(step), '9:CallLLMStep']);
    open();
    expect(await handle.result()).toMatchObject({ status: 'completed', stepCount: TOOL_STEPS + 1 });
    const finished = await stepList(handle.workflowId);
    const expected = ['0:BeginRunStep', ...Array.from({ length: TOOL_STEPS }, (_, i) => step(i + 1)).flat(), '25:CallLLMStep', '26:FinishRunStep'];
    expect(finished).toEqual(expected);
    expect(finished).toHaveLength(27);
    // Every step row holds its outcome: no error rows, tool outputs compact (the result lives in the messages).
    const rows = (await DBOS.listWorkflowSteps(handle.workflowId)) ?? [];
    expect(rows.every((row) => row.error === null || row.error === undefined)).toBe(true);
    expect(toolRuns).toBe(TOOL_STEPS);
  }, 60_000);

  it("stamps each run's workflow input with the journal format and the journal that started it", async () => {
    const handle = await runtime.executor.execute(researcher, 'Find it.', { sessionId: 'journal-2' });
    await handle.result();
    const status = await DBOS.getWorkflowStatus(handle.workflowId);
    const [input] = (status?.input ?? []) as [AgentWorkflowInput];
    expect(input.journal).toEqual({ format: JOURNAL_FORMAT, journal: activeJournal() });
    expect(activeJournal()).toBe(journalFromEnvironment());
  }, 60_000);

  it('refuses a run recorded before the journal format (no stamp) before any step: no model call, no tool; the next call ends it failed', async () => {
    const sessionId = 'journal-legacy';
    await runtime.stateStore.createSession(sessionId, { agentType: researcher.name, status: 'active', mode: 'standard', streamId: sessionId });
    const runId = 'run-legacy';
    const workflowId = standardWorkflowId(researcher.name, sessionId, runId);
    const input: AgentWorkflowInput = {
      sessionId,
      runId,
      agentType: researcher.name,
      streamId: sessionId,
      workflowId,
      startSequence: 0,
      rootSessionId: sessionId,
      warmWindowMs: 60_000,
      userMessage: { id: `${runId}:0:0`, role: 'user', content: 'hello' },
    };
    await runtime.stateStore.createRun(sessionId, { runId, status: 'running', stepCount: 0, startSequence: 0, workflowId, startedAt: Date.now(), metadata: { workflowInput: input } });
    const callsBefore = llm.calls.length;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- DBOS needs the registered static method itself
    const refusal = await DBOS.startWorkflow(AgentWorkflows.runAgent, { workflowID: workflowId })(input)
      .then((started) => started.getResult())
      .catch((error: unknown) => error);
    expect(JournalFormatUnsupportedError.isInstance(refusal)).toBe(true);
    expect((refusal as JournalFormatUnsupportedError).code).toBe('JOURNAL_FORMAT_UNSUPPORTED');
    expect(await DBOS.listWorkflowSteps(workflowId)).toEqual([]);
    expect(llm.calls.length).toBe(callsBefore);
    // Its handle reports the refusal; the next call on the session records the run failed (stuck-run repair), and a
    // retry runs the session on this release's journal: nothing is left stuck.
    const legacy = await runtime.executor.getHandle(researcher, sessionId);
    const reported = await legacy?.result().catch((error: unknown) => error);
    expect(JournalFormatUnsupportedError.isInstance(reported)).toBe(true);
    const retried = await runtime.executor.retry(researcher, sessionId);
    expect((await runtime.stateStore.getRun(sessionId, runId))?.status).toBe('failed');
    expect(await retried.result()).toMatchObject({ status: 'completed', output: 'found' });
  }, 60_000);
});
