import { randomBytes } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import { DBOSAgentExecutor, defineAgent, defineTool, PostgresStateStore, PostgresStreamManager } from '../../src/index.js';
import { activeJournal } from '../../src/journal/journal.js';
import { MockLLMAdapter } from '../../src/llm/mock-llm-adapter.js';
import type { JournalKind } from '../../src/types/journal.js';
import { withSessionTimeouts } from '../../examples/demo/app-config.js';
import { scriptedTurn, type BenchSystem } from './bench-system.js';
import type { StepClock } from './step-clock.js';

/** Room for any session length the benchmark asks for. */
const MAX_STEPS = 100_000;
/** Bytes of random data behind each item the growing-state tool adds (base64: 1,024 characters). */
const ITEM_RANDOM_BYTES = 768;

/**
 * Ours: `DBOSAgentExecutor` with `PostgresStateStore` and `PostgresStreamManager` on one database (also
 * DBOS's system database), a scripted `MockLLMAdapter` that keeps no input copies, one no-op tool per step,
 * every step recorded by the step journal `journal` (the executor's `journal` option). With `growingState`,
 * the tool also pushes a 1 KB item (random, so incompressible) into the custom state every step. Launches
 * DBOS; `close()` shuts it down.
 *
 * @throws Error when the process records with another journal than `journal` (the fused one falls back to
 * the public one on a DBOS release it was not verified against), so no column is mislabelled.
 * @example
 * const system = await openHelixSystem(url, { growingState: false, journal: 'public' });
 */
export async function openHelixSystem(databaseUrl: string, options: { growingState: boolean; journal: JournalKind }): Promise<BenchSystem> {
  const stateStore = new PostgresStateStore({ connectionString: databaseUrl });
  const streamManager = new PostgresStreamManager({ connectionString: databaseUrl });
  await stateStore.migrate();
  let clock: StepClock | undefined;
  let steps = 0;
  let toolCalls = 0;
  const llmAdapter = new MockLLMAdapter(
    async (input) => {
      const call = input.step ?? 1;
      await clock?.onModelCall(call);
      return scriptedTurn(call, steps) === 'tool'
        ? { type: 'tool_calls', toolCalls: [{ id: `noop-${call}`, name: 'noop', arguments: {} }] }
        : { type: 'text', text: 'done' };
    },
    { recordInputs: false },
  );
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, journal: options.journal });
  if (activeJournal() !== options.journal) {
    await Promise.allSettled([stateStore.close(), streamManager.close()]);
    throw new Error(`Asked for the ${options.journal} journal, but this process records with the ${activeJournal()} journal.`);
  }
  const agent = options.growingState ? growingStateAgent(() => (toolCalls += 1)) : noopAgent(() => (toolCalls += 1));
  DBOS.setConfig({ name: 'helix-agents-bench', systemDatabaseUrl: withSessionTimeouts(databaseUrl), applicationVersion: 'bench', logLevel: 'warn' });
  await DBOS.launch();
  return {
    runSession: async (sessionId, sessionSteps, sessionClock) => {
      clock = sessionClock;
      steps = sessionSteps;
      toolCalls = 0;
      const result = await (await executor.execute(agent, 'Go.', { sessionId })).result();
      if (result.status !== 'completed') throw new Error(`Session ${sessionId} ended ${result.status}.`);
      return toolCalls;
    },
    close: async () => {
      await DBOS.shutdown();
      await Promise.allSettled([stateStore.close(), streamManager.close()]);
    },
  };
}

function noopAgent(onCall: () => void) {
  const noop = defineTool({
    name: 'noop',
    description: 'Does nothing.',
    parameters: z.object({}),
    execute: async () => {
      onCall();
      return { ok: true };
    },
  });
  return defineAgent({ name: 'bench_agent', systemPrompt: 'Call noop until told otherwise.', tools: [noop], maxSteps: MAX_STEPS });
}

function growingStateAgent(onCall: () => void) {
  const stateSchema = z.object({ items: z.array(z.string()).default([]) });
  const noop = defineTool<z.ZodObject<Record<string, never>>, { ok: boolean }, z.output<typeof stateSchema>>({
    name: 'noop',
    description: 'Adds a 1 KB item to the state.',
    parameters: z.object({}),
    execute: async (_input, context) => {
      onCall();
      const item = randomBytes(ITEM_RANDOM_BYTES).toString('base64');
      context.updateState((draft) => {
        draft.items.push(item);
      });
      return { ok: true };
    },
  });
  return defineAgent({ name: 'bench_state_agent', systemPrompt: 'Call noop until told otherwise.', stateSchema, tools: [noop], maxSteps: MAX_STEPS });
}
