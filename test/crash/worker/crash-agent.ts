/**
 * The agent every crash drill runs: a regular tool (`lookup`, phase 1, parallel) and a finishWith tool
 * (`submit_report`, phase 2). Each tool records its execution durably BEFORE doing its work, so the parent
 * counts executions across processes; a tool whose call id is listed in `blockToolCalls` then never
 * returns, so the parent can SIGKILL the worker while it runs.
 */
import type pg from 'pg';
import { z } from 'zod';
import { createSubAgentTool, defineAgent, defineTool, type AgentConfig, type ToolContext } from '../../../src/agent/index.js';
import { TOOL_RUNS_TABLE } from './worker-config.js';

/**
 * Agent type of the drill agent (part of every workflow id).
 *
 * @example
 * const workflowId = standardWorkflowId(CRASH_AGENT_NAME, sessionId, runId);
 */
export const CRASH_AGENT_NAME = 'crash_drill';

/**
 * Agent type of the drill agent's sub-agent (its tool is `subagent__crash_child`).
 *
 * @example
 * const childSessionId = `${parentSessionId}-sub-call_1_delegate`;
 */
export const CRASH_CHILD_NAME = 'crash_child';

/**
 * Custom state of the drill agent: the keys `lookup` found, in commit order.
 *
 * @example
 * const state: FactState = { facts: ['a', 'b'] };
 */
export interface FactState {
  facts: string[];
}

const factStateSchema = z.object({ facts: z.array(z.string()).default([]) });

/**
 * The drill agent's config type.
 *
 * @example
 * const agent: CrashAgent = createCrashAgent(pool, new Set());
 */
export type CrashAgent = AgentConfig<typeof factStateSchema, z.ZodType<unknown>>;

/**
 * Build the drill agent. `pool` writes the execution records; `blockToolCalls` lists tool call ids whose
 * execution blocks forever (after being recorded).
 *
 * @example
 * const agent = createCrashAgent(pool, new Set(['call_lookup_b']));
 */
export function createCrashAgent(pool: pg.Pool, blockToolCalls: ReadonlySet<string>, toolDelayMs = 0): CrashAgent {
  const begin = async (context: ToolContext<FactState>, toolName: string): Promise<void> => {
    await pool.query(`INSERT INTO ${TOOL_RUNS_TABLE} (session_id, tool_call_id, tool_name, pid) VALUES ($1, $2, $3, $4)`, [
      context.sessionId,
      context.toolCallId,
      toolName,
      process.pid,
    ]);
    if (blockToolCalls.has(context.toolCallId)) await new Promise<never>(() => undefined);
    if (toolDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, toolDelayMs));
  };

  const lookup = defineTool({
    name: 'lookup',
    description: 'Look up one fact by key and remember the key.',
    parameters: z.object({ key: z.string() }),
    execute: async ({ key }, context: ToolContext<FactState>) => {
      await begin(context, 'lookup');
      context.updateState((draft) => {
        draft.facts.push(key);
      });
      return { key, value: `value-of-${key}` };
    },
  });

  const submitReport = defineTool({
    name: 'submit_report',
    description: 'Submit the final report; completes the run.',
    parameters: z.object({ summary: z.string() }),
    finishWith: true,
    execute: async ({ summary }, context: ToolContext<FactState>) => {
      await begin(context, 'submit_report');
      return { summary, facts: [...context.getState().facts].sort() };
    },
  });

  // Sub-agent drills: a child that looks facts up on its own session and finishes with a summary.
  const child = defineAgent({
    name: CRASH_CHILD_NAME,
    systemPrompt: 'You look one topic up, then finish with a summary.',
    tools: [lookup],
    stateSchema: factStateSchema,
    outputSchema: z.object({ summary: z.string() }),
    maxSteps: 4,
  });

  return defineAgent({
    name: CRASH_AGENT_NAME,
    systemPrompt: 'You collect facts with lookup, then answer or submit a report.',
    tools: [lookup, submitReport, createSubAgentTool(child, z.object({ topic: z.string() }), { description: 'Delegate a topic.' })],
    stateSchema: factStateSchema,
    maxSteps: 5,
  });
}
