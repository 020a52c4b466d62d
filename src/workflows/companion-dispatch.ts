import { DBOS } from '@dbos-inc/dbos-sdk';
import type { PlannedCompanionCall } from '../orchestration/index.js';
import { errorMessage, resultFor, type IndexedMessage } from '../orchestration/step-messages.js';
import { CompanionStep, type CompanionPreparation } from '../steps/companion.step.js';
import { startPersistentWorkflow } from './persistent.workflow.js';
import type { TurnContext } from './turn-types.js';
import { companionDoneChannel, persistentInbox } from './workflow-messages.js';

/** Longest wait for a companion's wake-up message before the parent re-reads the child's run (a lost wake-up costs this much). */
const COMPANION_WAIT_MS = 60_000;

/**
 * The step's companion calls, one after another in call order (deterministic under replay): each call's store work
 * is one `CompanionStep.prepare`; a child's workflow is started from this body (a DBOS child workflow with a
 * deterministic id, so a replayed parent never starts it twice); a blocking agent's message and `waitForResult`
 * wait on the child's wake-up message (`companion:${childSessionId}`, no polling) and read the turn's run record.
 * Returns each call's result message.
 */
export async function runCompanionCalls(context: TurnContext, step: number, calls: readonly PlannedCompanionCall[]): Promise<IndexedMessage[]> {
  const results: IndexedMessage[] = [];
  for (const call of calls) results.push(await runCompanionCall(context, step, call));
  return results;
}

async function runCompanionCall(context: TurnContext, step: number, call: PlannedCompanionCall): Promise<IndexedMessage> {
  const { scope, input } = context;
  const prepared = await CompanionStep.prepare({ ...scope, step, call, rootSessionId: input.rootSessionId, hitlWarmWindowMs: input.warmWindowMs });
  if (prepared.kind === 'answered') return prepared.error === undefined ? resultFor(call, prepared.result ?? null) : errorMessage(call, prepared.error);
  if (prepared.kind === 'sent') {
    const { start, sendAfterStart, workflowId } = prepared.delivery;
    if (start !== undefined) await startPersistentWorkflow(start);
    if (sendAfterStart !== undefined) await persistentInbox.send(workflowId, undefined, sendAfterStart, sendAfterStart.runId);
    if (prepared.result !== undefined) return resultFor(call, prepared.result);
  }
  return waitForTurn(context, step, call, prepared);
}

/** Wait for the child's turn to end (or the deadline of `timeoutMs`), then answer with its outcome; a failure stays a failure. */
async function waitForTurn(context: TurnContext, step: number, call: PlannedCompanionCall, prepared: Exclude<CompanionPreparation, { kind: 'answered' }>): Promise<IndexedMessage> {
  const { scope } = context;
  const startedAt = await DBOS.now();
  const deadline = prepared.timeoutMs === undefined ? undefined : startedAt + prepared.timeoutMs;
  for (;;) {
    const now = await DBOS.now();
    const timedOut = deadline !== undefined && now >= deadline;
    const read = await CompanionStep.outcome({
      ...scope,
      step,
      call,
      name: prepared.name,
      childSessionId: prepared.childSessionId,
      ...(prepared.turnRunId === undefined ? {} : { turnRunId: prepared.turnRunId }),
      timedOut,
    });
    if (read.result !== undefined) {
      return read.outcome.kind === 'failed' ? errorMessage(call, `Companion ${prepared.name} failed: ${read.outcome.error}`) : resultFor(call, read.result);
    }
    await companionDoneChannel.receive(prepared.childSessionId, deadline === undefined ? COMPANION_WAIT_MS : Math.min(COMPANION_WAIT_MS, deadline - now));
  }
}
