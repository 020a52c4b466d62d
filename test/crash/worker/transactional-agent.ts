/**
 * The agent of the transactional-tool drills: one tool, `record_fact`, defined with `defineTransactionalTool`. It
 * records its execution in the tool-runs table outside its transaction (so the parent counts executions, including
 * rolled-back ones), inserts the fact into the app table inside it, and returns the row's id and the pid of the
 * process that ran it, so the parent can tell a replayed result from a recomputed one.
 */
import type pg from 'pg';
import { z } from 'zod';
import { defineAgent, defineTransactionalTool, type AgentConfig } from '../../../src/agent/index.js';
import { APP_FACTS_TABLE, TOOL_RUNS_TABLE, type PausePoint } from './worker-config.js';

/**
 * Agent type of the transactional drill agent.
 *
 * @example
 * const workflowId = standardWorkflowId(TRANSACTIONAL_AGENT_NAME, sessionId, runId);
 */
export const TRANSACTIONAL_AGENT_NAME = 'tx_drill';

/**
 * The drill agent's config type.
 *
 * @example
 * const agent: TransactionalAgent = createTransactionalAgent(pool, async () => undefined);
 */
export type TransactionalAgent = AgentConfig<z.ZodType<Record<string, unknown>>, z.ZodType<unknown>>;

/**
 * Build the drill agent. `pause(point, toolCallId)` is awaited inside the transaction after the insert (the
 * worker makes it never return for the drilled call).
 *
 * @example
 * const agent = createTransactionalAgent(pool, (point, toolCallId) => pauseIfDrilled(point, toolCallId));
 */
export function createTransactionalAgent(pool: pg.Pool, pause: (point: PausePoint, toolCallId: string) => Promise<void>): TransactionalAgent {
  const recordFact = defineTransactionalTool({
    name: 'record_fact',
    description: 'Record one fact in the application database.',
    parameters: z.object({ key: z.string() }),
    execute: async ({ key }, context) => {
      await pool.query(`INSERT INTO ${TOOL_RUNS_TABLE} (session_id, tool_call_id, tool_name, pid) VALUES ($1, $2, 'record_fact', $3)`, [
        context.sessionId,
        context.toolCallId,
        process.pid,
      ]);
      const { rows } = await context.client.query<{ id: number }>(
        `INSERT INTO ${APP_FACTS_TABLE} (session_id, tool_call_id, fact_key, pid) VALUES ($1, $2, $3, $4) RETURNING id`,
        [context.sessionId, context.toolCallId, key, process.pid],
      );
      await pause('inside_transaction', context.toolCallId);
      return { key, rowId: rows[0]?.id, pid: process.pid };
    },
  });
  return defineAgent({
    name: TRANSACTIONAL_AGENT_NAME,
    systemPrompt: 'You record facts with record_fact, then answer.',
    tools: [recordFact],
    maxSteps: 4,
  });
}
