/**
 * The agent of the queued-fleet drill: it names the fleet queue, so every run is enqueued, and has one `lookup` tool
 * that records each execution (with the process id) in the drill's tool-runs table before it answers. The API process
 * builds it to enqueue runs (its tool never runs there); the workers build it to run them.
 */
import type pg from 'pg';
import { z } from 'zod';
import { defineAgent, defineTool, type AgentConfig } from '../../../src/agent/index.js';
import { FLEET_AGENT_NAME, FLEET_QUEUE } from './fleet-worker-config.js';
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
