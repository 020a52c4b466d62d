import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, PostgresStateStore, PostgresStreamManager } from '../../src/index.js';
import { activeJournal } from '../../src/journal/journal.js';
import { MockLLMAdapter } from '../../src/llm/mock-llm-adapter.js';
import type { JournalKind } from '../../src/types/journal.js';
import type { StreamChunk } from '../../src/types/stream.js';
import { withSessionTimeouts } from '../../examples/demo/app-config.js';
import { createAnswerAgent } from '../hitl-agents.js';
import { ANSWER_TEXT, type TurnMarks, type TurnSystem } from './turn-system.js';

/**
 * Ours: `DBOSAgentExecutor` with `PostgresStateStore` and `PostgresStreamManager` on one database (also DBOS's
 * system database; no usage store, as in the side-by-side comparison), recording with the step journal
 * `journal`. The agent has no tools and one step; the scripted `MockLLMAdapter` streams `ANSWER_TEXT` word by
 * word (five `text_delta` chunks, no delay). A turn is `execute()`, then `handle.stream()` read for its
 * `text_delta` chunks while `handle.result()` is awaited. Launches DBOS; `close()` shuts it down.
 *
 * @throws Error when the process records with another journal than `journal` (so no column is mislabelled).
 * @example
 * const system = await openHelixTurns(url, 'fused');
 */
export async function openHelixTurns(databaseUrl: string, journal: JournalKind): Promise<TurnSystem> {
  const stateStore = new PostgresStateStore({ connectionString: databaseUrl });
  const streamManager = new PostgresStreamManager({ connectionString: databaseUrl });
  await stateStore.migrate();
  const system: TurnSystem = {
    onModelCall: () => undefined,
    runTurn: async (sessionId, message, marks) => {
      const handle = await executor.execute(agent, message, { sessionId });
      marks.returned();
      const streamed = readText(handle.stream(), marks);
      streamed.catch(() => undefined); // awaited below; a failed result() must not leave its rejection unhandled
      const result = await handle.result();
      marks.finished();
      if (result.status !== 'completed') throw new Error(`A turn of ${sessionId} ended ${result.status}.`);
      const text = await streamed;
      if (text !== ANSWER_TEXT) throw new Error(`A turn of ${sessionId} streamed "${text}" instead of the scripted answer.`);
    },
    close: async () => {
      await DBOS.shutdown();
      await Promise.allSettled([stateStore.close(), streamManager.close()]);
    },
  };
  const llmAdapter = new MockLLMAdapter(
    () => {
      system.onModelCall();
      return { type: 'text', text: ANSWER_TEXT };
    },
    { recordInputs: false },
  );
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, journal });
  if (activeJournal() !== journal) {
    await Promise.allSettled([stateStore.close(), streamManager.close()]);
    throw new Error(`Asked for the ${journal} journal, but this process records with the ${activeJournal()} journal.`);
  }
  const agent = createAnswerAgent();
  DBOS.setConfig({ name: 'helix-agents-bench', systemDatabaseUrl: withSessionTimeouts(databaseUrl), applicationVersion: 'bench', logLevel: 'warn' });
  await DBOS.launch();
  return system;
}

/** The text of a run's `text_delta` chunks, marking the first; the handle's stream ends with the run. */
async function readText(stream: AsyncIterable<StreamChunk>, marks: TurnMarks): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    if (chunk.type !== 'text_delta') continue;
    marks.firstToken();
    text += chunk.delta;
  }
  return text;
}
