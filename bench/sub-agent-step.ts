import { z } from 'zod';
import { createSubAgentTool, defineAgent, defineTool, type DBOSAgentExecutor } from '../src/index.js';
import type { MockLLMResponse } from '../src/llm/mock/mock-llm-response.js';
import type { LLMGenerateInput } from '../src/types/llm.js';
import { takeModelCallStarts } from './model-call-starts.js';
import { summarizeLatencies, type LatencySummary } from './latency-summary.js';

const CHILD = 'bench_child';
const DELEGATOR = 'bench_delegator';
const TOOL_CALLER = 'bench_tool_caller';

/**
 * The scripted answers of the sub-agent measurement: the delegator calls its sub-agent once then answers; the child's
 * one LLM step answers with its structured output; the tool caller calls a no-op tool once then answers.
 *
 * @example
 * const llm = new MockLLMAdapter((input) => subAgentBenchResponse(input) ?? { type: 'text', text: 'other' });
 */
export function subAgentBenchResponse(input: LLMGenerateInput): MockLLMResponse | undefined {
  if (input.agentType === CHILD) return { type: 'structured_output', output: { answer: 'ok' } };
  if (input.agentType !== DELEGATOR && input.agentType !== TOOL_CALLER) return undefined;
  if (input.step !== 1) return { type: 'text', text: 'done' };
  return input.agentType === DELEGATOR
    ? { type: 'tool_calls', toolCalls: [{ id: 'delegate', name: `subagent__${CHILD}`, arguments: { question: 'q' } }] }
    : { type: 'tool_calls', toolCalls: [{ id: 'noop', name: 'noop', arguments: {} }] };
}

function agents() {
  const child = defineAgent({ name: CHILD, systemPrompt: 'Answer.', outputSchema: z.object({ answer: z.string() }), maxSteps: 2 });
  const noop = defineTool({ name: 'noop', description: 'Does nothing.', parameters: z.object({}), execute: async () => ({ ok: true }) });
  return {
    delegator: defineAgent({ name: DELEGATOR, systemPrompt: 'Delegate.', tools: [createSubAgentTool(child, z.object({ question: z.string() }))], maxSteps: 3 }),
    toolCaller: defineAgent({ name: TOOL_CALLER, systemPrompt: 'Call noop.', tools: [noop], maxSteps: 3 }),
  };
}

/** What one agent step costs when it calls a sub-agent, next to one that calls a no-op tool. */
export interface SubAgentStepFigures {
  subAgentStep: LatencySummary;
  toolStep: LatencySummary;
}

/**
 * Alternate `samples` two-step sessions of each kind; a sample is the start-to-start time of the session's model
 * calls 1 → 2, i.e. the whole agent step: the LLM step, the tool step or the child run (its
 * dispatch, its own begin/LLM/commit/finish, the completion message), and the commit.
 *
 * @example
 * const { subAgentStep, toolStep } = await measureSubAgentStep(executor, 50);
 */
export async function measureSubAgentStep(executor: DBOSAgentExecutor, samples: number): Promise<SubAgentStepFigures> {
  const { delegator, toolCaller } = agents();
  const subAgent: number[] = [];
  const tool: number[] = [];
  for (let index = 0; index < samples; index += 1) {
    for (const [agent, into] of [[delegator, subAgent], [toolCaller, tool]] as const) {
      const sessionId = `bench-${agent.name}-${index}`;
      const result = await (await executor.execute(agent, 'Go.', { sessionId })).result();
      if (result.status !== 'completed') throw new Error(`The ${agent.name} session did not complete (${result.status}).`);
      const [first, second] = takeModelCallStarts(sessionId);
      if (first === undefined || second === undefined) throw new Error('The LLM steps were not recorded.');
      into.push(second - first);
    }
  }
  return { subAgentStep: summarizeLatencies(subAgent), toolStep: summarizeLatencies(tool) };
}
