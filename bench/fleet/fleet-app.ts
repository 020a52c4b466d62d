import type { DBOSConfig } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../src/index.js';
import { MockLLMAdapter } from '../../src/llm/mock-llm-adapter.js';
import { withSessionTimeouts } from '../../examples/demo/app-config.js';

/**
 * The DBOS queue of the queued configurations: workers register it, the API process enqueues on it.
 *
 * @example
 * await DBOS.registerQueue(FLEET_BENCH_QUEUE, { minPollingIntervalMs: 10 });
 */
export const FLEET_BENCH_QUEUE = 'agents';

/**
 * Agent type of the multi-step agent (one no-op tool call per step, then an answer).
 *
 * @example
 * createFleetAgents(counter, true).steps.name; // 'fleet_steps'
 */
export const STEPS_AGENT_NAME = 'fleet_steps';

/**
 * Agent type of the one-step agent (answers at once, no tools).
 *
 * @example
 * createFleetAgents(counter, true).answer.name; // 'fleet_answer'
 */
export const ANSWER_AGENT_NAME = 'fleet_answer';

/**
 * The DBOS configuration every process of a configuration shares: one `name` and one `applicationVersion` (DBOS
 * dequeues only its own version's workflows), each process with its own executor id.
 *
 * @example
 * DBOS.setConfig({ ...fleetBenchDBOSConfig(url, 'worker-1') });
 */
export function fleetBenchDBOSConfig(databaseUrl: string, executorID: string): DBOSConfig {
  return { name: 'helix-agents-bench-fleet', systemDatabaseUrl: withSessionTimeouts(databaseUrl), applicationVersion: 'bench-fleet', executorID, logLevel: 'warn' };
}

/**
 * Tool calls this process ran, per session.
 *
 * @example
 * const counter = new ToolCallCounter();
 * counter.note('round-1-0');
 * counter.take('round-1'); // { 'round-1-0': 1 }
 */
export class ToolCallCounter {
  private readonly counts = new Map<string, number>();

  /** One tool call of `sessionId` ran here. */
  note(sessionId: string): void {
    this.counts.set(sessionId, (this.counts.get(sessionId) ?? 0) + 1);
  }

  /**
   * The counts of the sessions named `<label>-…`, removed from the counter.
   *
   * @example
   * counter.take('warm-up'); // { 'warm-up-0': 10, … }
   */
  take(label: string): Record<string, number> {
    const taken: Record<string, number> = {};
    for (const [sessionId, count] of this.counts) {
      if (!sessionId.startsWith(`${label}-`)) continue;
      taken[sessionId] = count;
      this.counts.delete(sessionId);
    }
    return taken;
  }
}

/**
 * The scripted model (~0 ms, keeps no input copies): the multi-step agent calls the no-op tool at steps
 * 1..`toolSteps` and answers at the next; the one-step agent answers at once.
 *
 * @example
 * const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: createFleetModel(10) });
 */
export function createFleetModel(toolSteps: number): MockLLMAdapter {
  return new MockLLMAdapter(
    (input) =>
      input.agentType === STEPS_AGENT_NAME && (input.step ?? 1) <= toolSteps
        ? { type: 'tool_calls', toolCalls: [{ id: `noop-${input.step ?? 1}`, name: 'noop', arguments: {} }] }
        : { type: 'text', text: 'done' },
    { recordInputs: false },
  );
}

/**
 * The two agents of the benchmark, on the queue when `queued` (same names in every process): `steps` calls a
 * no-op tool (counted by `counter` in the process that runs it) at each step until the model answers, `answer`
 * answers at once.
 *
 * @example
 * const { steps, answer } = createFleetAgents(new ToolCallCounter(), true);
 */
export function createFleetAgents(counter: ToolCallCounter, queued: boolean) {
  const noop = defineTool({
    name: 'noop',
    description: 'Does nothing.',
    parameters: z.object({}),
    execute: async (_input, context) => {
      counter.note(context.sessionId);
      return { ok: true };
    },
  });
  const queue = queued ? { queue: FLEET_BENCH_QUEUE } : {};
  return {
    steps: defineAgent({ name: STEPS_AGENT_NAME, systemPrompt: 'Call noop until told otherwise.', tools: [noop], maxSteps: 1_000, ...queue }),
    answer: defineAgent({ name: ANSWER_AGENT_NAME, systemPrompt: 'Answer at once.', tools: [], maxSteps: 1, ...queue }),
  };
}
