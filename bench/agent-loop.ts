import { DBOS } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import { defineAgent, defineTool, type DBOSAgentExecutor } from '../src/index.js';
import { MockLLMAdapter } from '../src/llm/mock-llm-adapter.js';
import { hitlBenchResponse } from './hitl-agents.js';
import { subAgentBenchResponse } from './sub-agent-step.js';
import { noteModelCall, takeModelCallStarts } from './model-call-starts.js';

/**
 * The benchmark's scripted model: step n ≤ `toolSteps` calls the no-op tool once, the next step answers
 * with text (which ends the run); the human-in-the-loop agents get `hitlBenchResponse`. No delays: the
 * loop's own cost is what is measured. It keeps no copies of its inputs (thousands of calls per run).
 *
 * @example
 * const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: createBenchModel(200) });
 */
export function createBenchModel(toolSteps: number): MockLLMAdapter {
  return new MockLLMAdapter(
    (input) =>
      noteModelCall(input.sessionId) ??
      hitlBenchResponse(input) ??
      subAgentBenchResponse(input) ??
      ((input.step ?? 1) <= toolSteps
        ? { type: 'tool_calls', toolCalls: [{ id: `noop-${input.step}`, name: 'noop', arguments: {} }] }
        : { type: 'text', text: 'done' }),
    { recordInputs: false },
  );
}

/**
 * The benchmark agent: one no-op tool, room for `maxSteps` steps, no output schema (a text answer ends it).
 *
 * @example
 * const agent = createBenchAgent(201);
 */
export function createBenchAgent(maxSteps: number) {
  const noop = defineTool({ name: 'noop', description: 'Does nothing.', parameters: z.object({}), execute: async () => ({ ok: true }) });
  return defineAgent({ name: 'bench_agent', systemPrompt: 'Call noop until told otherwise.', tools: [noop], maxSteps });
}

/**
 * Timings of one measured run.
 *
 * @example
 * const timing: RunTiming = { wallMs: 2400, stepStarts: [0, 12, 24] };
 */
export interface RunTiming {
  /** From the start call until the result. */
  wallMs: number;
  /** DBOS-recorded start time (epoch ms) of each measured step, in order. */
  stepStarts: number[];
}

/**
 * Run one agent session of `toolSteps` tool steps plus the final answer; the step starts are the starts of its model
 * calls (a step whose sole tool call commits it has no DBOS rows to time it by).
 *
 * @example
 * const timing = await timeAgentRun(executor, agent, 'bench-1');
 */
export async function timeAgentRun(executor: DBOSAgentExecutor, agent: ReturnType<typeof createBenchAgent>, sessionId: string): Promise<RunTiming> {
  const startedAt = performance.now();
  const handle = await executor.execute(agent, 'Go.', { sessionId });
  const result = await handle.result();
  const wallMs = performance.now() - startedAt;
  if (result.status !== 'completed') throw new Error(`The benchmark run ended ${result.status}: ${result.error ?? ''}`);
  return { wallMs, stepStarts: takeModelCallStarts(sessionId) };
}

/**
 * Start times of a workflow's recorded steps of one name, in order.
 *
 * @example
 * const starts = await stepStarts('bare-1', 'BareStep');
 */
export async function stepStarts(workflowId: string, stepName: string): Promise<number[]> {
  const steps = (await DBOS.listWorkflowSteps(workflowId)) ?? [];
  return steps.filter((step) => step.name === stepName).map((step) => step.startedAtEpochMs ?? Number.NaN);
}

/**
 * Average start-to-start duration of steps `first`..`last` (1-based); needs the start of step `last + 1`.
 *
 * @example
 * averageStepMs([0, 10, 22, 30], 1, 3); // 10
 */
export function averageStepMs(starts: readonly number[], first: number, last: number): number {
  const begin = starts[first - 1];
  const end = starts[last];
  if (begin === undefined || end === undefined) throw new Error(`Steps ${first}-${last} were not all recorded.`);
  return (end - begin) / (last - first + 1);
}
