import type { JournalKind } from '../../src/types/journal.js';
import type { StepClock } from './step-clock.js';

/**
 * One system of the side-by-side comparison, set up on its own database.
 *
 * @example
 * const system: BenchSystem = await openLangGraphSystem(url);
 * const toolCalls = await system.runSession('s-1', 200, new StepClock());
 */
export interface BenchSystem {
  /**
   * Run one session: model calls 1..`steps` each ask for one no-op tool call, call `steps + 1` answers with
   * text. Every model call reports to `clock` first. Resolves with the tool executions the session ran.
   */
  runSession(sessionId: string, steps: number, clock: StepClock): Promise<number>;
  /** Stop the system and close its connections. */
  close(): Promise<void>;
}

/**
 * The systems compared: ours on the fused journal (`helix`), ours on the public journal, ours (fused) with a
 * custom state that gains 1 KB per step, LangGraph.js with PostgresSaver, and a naive DBOS loop of three bare
 * steps per agent step.
 *
 * @example
 * const name: SystemName = 'langgraph';
 */
export type SystemName = 'helix' | 'helix-public-journal' | 'helix-growing-state' | 'langgraph' | 'naive-dbos';

/**
 * Every system name, in report order.
 *
 * @example
 * SYSTEM_NAMES.includes('naive-dbos'); // true
 */
export const SYSTEM_NAMES: readonly SystemName[] = ['helix', 'helix-public-journal', 'langgraph', 'naive-dbos', 'helix-growing-state'];

/**
 * The step journal a system of ours records with (its child process gets it as `HELIX_JOURNAL` and as the
 * executor's `journal` option); `undefined` for the peers.
 *
 * @example
 * journalOf('helix-public-journal'); // 'public'
 */
export function journalOf(system: SystemName): JournalKind | undefined {
  switch (system) {
    case 'helix':
    case 'helix-growing-state':
      return 'fused';
    case 'helix-public-journal':
      return 'public';
    case 'langgraph':
    case 'naive-dbos':
      return undefined;
  }
}

/**
 * What the scripted model of every system answers at model call `call` of a session of `steps` tool steps.
 *
 * @example
 * scriptedTurn(201, 200); // 'answer'
 */
export function scriptedTurn(call: number, steps: number): 'tool' | 'answer' {
  return call <= steps ? 'tool' : 'answer';
}
