/**
 * The agents of the fleet drills. Both name the fleet queue, so every run is enqueued, and have one `lookup` tool:
 * the queued-fleet agent's records each execution (with the process id) in the drill's tool-runs table before it
 * answers; the ledger agent's records its start and its end in the fleet tool ledger. The API process builds them to
 * enqueue runs (their tools never run there); the workers build them to run them.
 */
import type pg from 'pg';
import { z } from 'zod';
import { defineAgent, defineTool, type AgentConfig } from '../../../src/agent/index.js';
import { FLEET_AGENT_NAME, FLEET_LEDGER_AGENT_NAME, FLEET_QUEUE, FLEET_TOOL_LEDGER } from './fleet-worker-config.js';
import { TOOL_RUNS_TABLE } from './worker-config.js';

/**
 * The fleet agent's config type.
 *
 * @example
 * const agent: FleetAgent = createFleetAgent(pool);
 */
export type FleetAgent = AgentConfig<z.ZodType<Record<string, unknown>>, z.ZodType<unknown>>;

/**
 * Build the fleet agent. `pool` writes the tool's execution records; the tool sleeps `toolDelayMs` after recording.
 *
 * @example
 * const agent = createFleetAgent(pool, 300);
 * const handle = await executor.execute(agent, userMessageFor('fleet-1'), { sessionId: 'fleet-1' });
 */
export function createFleetAgent(pool: pg.Pool, toolDelayMs = 0): FleetAgent {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look up one fact by key.',
    parameters: z.object({ key: z.string() }),
    execute: async ({ key }, context) => {
      await pool.query(`INSERT INTO ${TOOL_RUNS_TABLE} (session_id, tool_call_id, tool_name, pid) VALUES ($1, $2, $3, $4)`, [
        context.sessionId,
        context.toolCallId,
        'lookup',
        process.pid,
      ]);
      if (toolDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, toolDelayMs));
      return { key, value: `value-of-${key}` };
    },
  });
  return defineAgent({
    name: FLEET_AGENT_NAME,
    systemPrompt: 'You look a fact up, then answer.',
    tools: [lookup],
    queue: FLEET_QUEUE,
    maxSteps: 3,
  });
}

/**
 * Build the ledger agent: up to three lookups, one per step, then an answer. Each lookup inserts its start record
 * (session, call id, process id), sleeps `toolDelayMs`, sets its end, then answers.
 *
 * @example
 * const agent = createLedgerFleetAgent(pool, 400);
 * const handle = await executor.execute(agent, userMessageFor('dead-1'), { sessionId: 'dead-1' });
 */
export function createLedgerFleetAgent(pool: pg.Pool, toolDelayMs = 0): FleetAgent {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look up one fact by key.',
    parameters: z.object({ key: z.string() }),
    execute: async ({ key }, context) => {
      const { rows } = await pool.query<{ id: string }>(`INSERT INTO ${FLEET_TOOL_LEDGER} (session_id, tool_call_id, pid) VALUES ($1, $2, $3) RETURNING id`, [
        context.sessionId,
        context.toolCallId,
        process.pid,
      ]);
      if (toolDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, toolDelayMs));
      await pool.query(`UPDATE ${FLEET_TOOL_LEDGER} SET ended_at = clock_timestamp() WHERE id = $1`, [rows[0]?.id]);
      return { key, value: `value-of-${key}` };
    },
  });
  return defineAgent({
    name: FLEET_LEDGER_AGENT_NAME,
    systemPrompt: 'You look facts up, one at a time, then answer.',
    tools: [lookup],
    queue: FLEET_QUEUE,
    maxSteps: 5,
  });
}
