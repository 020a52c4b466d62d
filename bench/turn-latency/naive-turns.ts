import { DBOS } from '@dbos-inc/dbos-sdk';
import { openNaiveDbosSystem } from '../side-by-side/naive-dbos-system.js';
import { naiveLoopContext, NaiveLoopWorkflows } from '../side-by-side/naive-loop.workflow.js';
import { StepClock } from '../side-by-side/step-clock.js';
import type { TurnSystem } from './turn-system.js';

/** The naive loop's clock, reduced to telling the system its model was called. */
class ModelCallClock extends StepClock {
  constructor(private readonly onCall: () => void) {
    super();
  }

  override async onModelCall(): Promise<void> {
    this.onCall();
  }
}

/**
 * The naive DBOS loop of the side-by-side comparison (set up by `openNaiveDbosSystem`), asked for no tool
 * step: a turn is one workflow of two bare `@DBOS.step`s (model stub answering at once, append the answer's
 * row). It streams nothing. Its start call is `DBOS.startWorkflow`, its result `handle.getResult()`. Turn n > 1
 * of a session is a workflow of its own (`<session>-turn-<n>`) appending its row under `<session>#<n>` (the
 * loop keys rows by session and step, and a one-step turn is always step 1).
 *
 * @example
 * const system = await openNaiveTurns(url);
 */
export async function openNaiveTurns(databaseUrl: string): Promise<TurnSystem> {
  const base = await openNaiveDbosSystem(databaseUrl);
  const turns = new Map<string, number>();
  const system: TurnSystem = {
    onModelCall: () => undefined,
    runTurn: async (sessionId, _message, marks) => {
      const turn = (turns.get(sessionId) ?? 0) + 1;
      turns.set(sessionId, turn);
      const workflowID = turn === 1 ? sessionId : `${sessionId}-turn-${turn}`;
      // DBOS needs the registered (decorated) static method itself, not a wrapper.
      // eslint-disable-next-line @typescript-eslint/unbound-method
      const handle = await DBOS.startWorkflow(NaiveLoopWorkflows.run, { workflowID })(turn === 1 ? sessionId : `${sessionId}#${turn}`, 0);
      marks.returned();
      const calls = await handle.getResult();
      marks.finished();
      if (calls !== 1) throw new Error(`A turn of ${sessionId} made ${calls} model calls instead of 1.`);
    },
    close: () => base.close(),
  };
  naiveLoopContext.clock = new ModelCallClock(() => system.onModelCall());
  return system;
}
