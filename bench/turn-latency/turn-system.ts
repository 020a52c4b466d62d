import type { SystemName } from '../side-by-side/bench-system.js';

/**
 * The systems of the turn-latency comparison: ours on the fused and on the public step journal, LangGraph.js
 * with PostgresSaver, and the naive DBOS loop (the side-by-side systems without the growing state).
 *
 * @example
 * const system: TurnSystemName = 'langgraph';
 */
export type TurnSystemName = Exclude<SystemName, 'helix-growing-state'>;

/**
 * Every system, in report order.
 *
 * @example
 * TURN_SYSTEMS.length; // 4
 */
export const TURN_SYSTEMS: readonly TurnSystemName[] = ['helix', 'helix-public-journal', 'langgraph', 'naive-dbos'];

/**
 * The scripted answer of every system: five text tokens, streamed at once (no delay), so the first token
 * reaches the caller before the last one could.
 *
 * @example
 * ANSWER_TOKENS.join(''); // 'Hello from the scripted model.'
 */
export const ANSWER_TOKENS: readonly string[] = ['Hello ', 'from ', 'the ', 'scripted ', 'model.'];

/**
 * The scripted answer as one text.
 *
 * @example
 * ANSWER_TEXT; // 'Hello from the scripted model.'
 */
export const ANSWER_TEXT = ANSWER_TOKENS.join('');

/**
 * The moments of one turn, in ms since the turn was started (`performance.now()` when constructed). Each mark
 * keeps its first call, so a system may mark "first token" on every token.
 *
 * @example
 * const marks = new TurnMarks();
 * const handle = await executor.execute(agent, 'Go.', { sessionId });
 * marks.returned();
 */
export class TurnMarks {
  private readonly startedAt: number;
  private readonly seen: Partial<Record<TurnMoment, number>> = {};

  constructor(startedAt: number = performance.now()) {
    this.startedAt = startedAt;
  }

  /** The start call returned a handle (or a stream). */
  returned(): void {
    this.mark('returned');
  }

  /** The scripted model was invoked. */
  modelCalled(): void {
    this.mark('modelCalled');
  }

  /** A text token reached the caller's stream. */
  firstToken(): void {
    this.mark('firstToken');
  }

  /** The final result is in the caller's hands. */
  finished(): void {
    this.mark('finished');
  }

  /**
   * The ms since the start at which `moment` was first marked, `undefined` if never.
   *
   * @example
   * marks.at('firstToken'); // 5.6
   */
  at(moment: TurnMoment): number | undefined {
    const time = this.seen[moment];
    return time === undefined ? undefined : time - this.startedAt;
  }

  private mark(moment: TurnMoment): void {
    this.seen[moment] ??= performance.now();
  }
}

/**
 * A moment of a turn that `TurnMarks` records.
 *
 * @example
 * const moment: TurnMoment = 'firstToken';
 */
export type TurnMoment = 'returned' | 'modelCalled' | 'firstToken' | 'finished';

/**
 * One system of the turn-latency comparison, set up on its own database.
 *
 * @example
 * const system: TurnSystem = await openLangGraphTurns(url);
 * system.onModelCall = () => marks.modelCalled();
 * await system.runTurn('s-1', 'Go.', marks);
 */
export interface TurnSystem {
  /** Called by the scripted model at each invocation, before it answers (set by the caller). */
  onModelCall: () => void;
  /**
   * Send `message` as a new turn of `sessionId` (a new session on the first turn) and follow it to the end: mark
   * when the start call returned, when each text token reached the caller's stream (systems that stream), and
   * when the final result was in hand. Resolves once the turn is over and its answer checked.
   *
   * @throws Error when the turn did not complete with the scripted answer.
   */
  runTurn(sessionId: string, message: string, marks: TurnMarks): Promise<void>;
  /** Stop the system and close its connections. */
  close(): Promise<void>;
}
