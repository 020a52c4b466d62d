/**
 * The agent of the human-in-the-loop drills: a server tool (`lookup`), a client-executed tool (`pick_city`),
 * an approval-gated server tool (`transfer`, gated by a predicate above 100) and a sub-agent tree for the
 * sub-agent drills: `subagent__hitl_banker` (child: `transfer`, then `subagent__hitl_asker`) whose grandchild
 * asks `pick_city`. Every server-side effect —
 * each tool execution and each evaluation of the approval predicate — is recorded durably with the process
 * id, so the parent counts them across processes (and across SIGKILLs).
 */
import type pg from 'pg';
import { z } from 'zod';
import { createSubAgentTool, defineAgent, defineTool, type AgentConfig, type ToolContext } from '../../../src/agent/index.js';
import { TOOL_RUNS_TABLE } from './worker-config.js';

/**
 * Agent type of the human-in-the-loop drill agent (part of every workflow id).
 *
 * @example
 * const workflowId = standardWorkflowId(HITL_AGENT_NAME, sessionId, runId);
 */
export const HITL_AGENT_NAME = 'hitl_drill';

/**
 * Agent types of the sub-agent tree below the HITL agent: child (`subagent__hitl_banker`) and grandchild
 * (`subagent__hitl_asker`).
 *
 * @example
 * const tool = `subagent__${HITL_TREE_AGENTS.child}`;
 */
export const HITL_TREE_AGENTS = { child: 'hitl_banker', grandchild: 'hitl_asker' } as const;

/**
 * The `tool_name` recorded for one evaluation of `transfer`'s approval predicate.
 *
 * @example
 * const checks = runs.filter((run) => run.toolName === APPROVAL_CHECK_RECORD);
 */
export const APPROVAL_CHECK_RECORD = 'transfer_approval_check';

/**
 * The HITL drill agent's config type.
 *
 * @example
 * const agent: HitlAgent = createHitlAgent(pool);
 */
export type HitlAgent = AgentConfig<z.ZodType<Record<string, unknown>>, z.ZodType<unknown>>;

/**
 * Build the HITL drill agent; `pool` writes the execution records (table {@link TOOL_RUNS_TABLE}).
 *
 * @example
 * registerAgent(createHitlAgent(pool));
 */
export function createHitlAgent(pool: pg.Pool): HitlAgent {
  const record = async (context: ToolContext, toolName: string): Promise<void> => {
    await pool.query(`INSERT INTO ${TOOL_RUNS_TABLE} (session_id, tool_call_id, tool_name, pid) VALUES ($1, $2, $3, $4)`, [
      context.sessionId,
      context.toolCallId,
      toolName,
      process.pid,
    ]);
  };

  const lookup = defineTool({
    name: 'lookup',
    description: 'Look up one fact by key.',
    parameters: z.object({ key: z.string() }),
    execute: async ({ key }, context: ToolContext) => {
      await record(context, 'lookup');
      return { key, value: `value-of-${key}` };
    },
  });

  const pickCity = defineTool({
    name: 'pick_city',
    description: 'Ask the user to pick a city (runs on the client).',
    parameters: z.object({ prompt: z.string() }),
    execute: 'client',
  });

  const transfer = defineTool({
    name: 'transfer',
    description: 'Move money; amounts above 100 need the user’s approval.',
    parameters: z.object({ amount: z.number() }),
    requireApproval: async ({ amount }, context: ToolContext) => {
      await record(context, APPROVAL_CHECK_RECORD);
      return amount > 100;
    },
    execute: async ({ amount }, context: ToolContext) => {
      await record(context, 'transfer');
      return { moved: amount };
    },
  });

  // Sub-agent drills: the grandchild asks the user (client tool); the child moves money (approval gate), then
  // may delegate a question to the grandchild, then finishes with a receipt.
  const asker = defineAgent({
    name: HITL_TREE_AGENTS.grandchild,
    systemPrompt: 'You ask the user to pick a city, then finish with the answer.',
    tools: [pickCity],
    outputSchema: z.object({ answer: z.string() }),
    maxSteps: 3,
  });
  const banker = defineAgent({
    name: HITL_TREE_AGENTS.child,
    systemPrompt: 'You move money, may ask the user through the asker, then finish with a receipt.',
    tools: [transfer, createSubAgentTool(asker, z.object({ question: z.string() }), { description: 'Ask the user a question.' })],
    outputSchema: z.object({ receipt: z.string() }),
    maxSteps: 4,
  });

  return defineAgent({
    name: HITL_AGENT_NAME,
    systemPrompt: 'You look facts up, ask the user to pick a city, and move money when asked.',
    tools: [lookup, pickCity, transfer, createSubAgentTool(banker, z.object({ task: z.string() }), { description: 'Delegate a payment.' })],
    maxSteps: 5,
  });
}
