import { DBOS } from '@dbos-inc/dbos-sdk';
import { sendInboxTurn } from '../channels/persistent-inbox.js';
import type { CompanionCallWait } from '../orchestration/companions.js';
import type { PlannedCompanionCall } from '../orchestration/index.js';
import { errorMessage, resultFor, type IndexedMessage } from '../orchestration/step-messages.js';
import type { CompanionDelivery } from '../steps/companion-children.js';
import { CompanionSettleStep } from '../steps/companion-settle.step.js';
import { CompanionStep } from '../steps/companion.step.js';
import { startPersistentWorkflow } from './persistent-start.js';
import type { TurnContext } from './turn-types.js';
import { companionDoneReceiver } from './workflow-messages.js';

/** Longest wait for a companion's wake-up message before the parent re-reads the child's run (a lost wake-up costs this much). */
const COMPANION_WAIT_MS = 60_000;

/**
 * A blocking companion call whose child's turn waits for a human past the warm window: the parent's step parks
 * for it (`suspended_awaiting_children`) with the tree's open calls.
 */
export interface WaitingCompanion {
  wait: CompanionCallWait;
  toolCallIds: string[];
}

/** What the step's companion calls produced: result messages, and the blocking calls whose child parked. */
export interface CompanionCallsOutcome {
  results: IndexedMessage[];
  waiting: WaitingCompanion[];
}

/** What the parent waits for: a child's turn (`turnRunId`; absent: its current turn), with an optional deadline. */
interface TurnWait {
  name: string;
  childSessionId: string;
  agentType: string;
  turnRunId?: string;
  timeoutMs?: number;
  /** When the call began (its `execute_tool` span's start). */
  callStartedAt?: number;
}

/**
 * The step's companion calls, one after another in call order (deterministic under replay): each call's store work
 * is one `CompanionStep.prepare`; a child's workflow is started from this body (a DBOS child workflow with a
 * deterministic id, so a replayed parent never starts it twice); a blocking agent's message and `waitForResult`
 * wait on the child's wake-up message (`companion:${childSessionId}`, no polling) and read the turn's run record.
 * A waited turn that parks for a human leaves the call waiting (the step then parks like for an ephemeral child).
 */
export async function runCompanionCalls(context: TurnContext, step: number, calls: readonly PlannedCompanionCall[]): Promise<CompanionCallsOutcome> {
  const outcome: CompanionCallsOutcome = { results: [], waiting: [] };
  for (const call of calls) {
    const settled = await runCompanionCall(context, step, call);
    if ('message' in settled) outcome.results.push(settled.message);
    else outcome.waiting.push(settled);
  }
  return outcome;
}

/**
 * A resumed parent's parked step: continue every companion it waited for (`CompanionSettleStep.prepareContinue`,
 * the cascade table), all preparations first, then the starts, then the waits one after another (fixed order).
 * Each call gets its child's real turn result, or waits again when that turn parks again.
 */
export async function continueCompanionCalls(context: TurnContext, step: number, waits: readonly CompanionCallWait[]): Promise<CompanionCallsOutcome> {
  const { scope } = context;
  const prepared = [];
  for (const wait of waits) prepared.push(await CompanionSettleStep.prepareContinue({ ...scope, step, wait }));
  for (const continuation of prepared) if (continuation.delivery !== undefined) await deliver(continuation.delivery);
  const outcome: CompanionCallsOutcome = { results: [], waiting: [] };
  for (const [index, wait] of waits.entries()) {
    const turnRunId = prepared[index]?.turnRunId;
    const settled = await waitForTurn(context, step, wait.call, {
      name: wait.name,
      childSessionId: wait.childSessionId,
      agentType: wait.agentType,
      ...(turnRunId === undefined ? {} : { turnRunId }),
      ...(wait.startedAt === undefined ? {} : { callStartedAt: wait.startedAt }),
    });
    if ('message' in settled) outcome.results.push(settled.message);
    else outcome.waiting.push(settled);
  }
  return outcome;
}

async function runCompanionCall(context: TurnContext, step: number, call: PlannedCompanionCall): Promise<{ message: IndexedMessage } | WaitingCompanion> {
  const { scope, input } = context;
  const prepared = await CompanionStep.prepare({ ...scope, step, call, rootSessionId: input.rootSessionId, hitlWarmWindowMs: input.warmWindowMs });
  if (prepared.kind === 'answered')
    return { message: prepared.error === undefined ? resultFor(call, prepared.result ?? null) : errorMessage(call, prepared.error) };
  if (prepared.kind === 'sent') {
    await deliver(prepared.delivery);
    if (prepared.result !== undefined) return { message: resultFor(call, prepared.result) };
  }
  return waitForTurn(context, step, call, prepared);
}

/** Start the child's generation from this body (deterministic id), then send the message the start owes. */
async function deliver({ start, sendAfterStart, workflowId }: CompanionDelivery): Promise<void> {
  if (start !== undefined) await startPersistentWorkflow(start);
  if (sendAfterStart !== undefined) await sendInboxTurn(workflowId, sendAfterStart);
}

/**
 * Wait for the child's turn to end (or the deadline of `timeoutMs`), then answer with its outcome (a failure stays
 * a failure); a turn that parked for a human: the call waits (parked) for it.
 */
async function waitForTurn(
  context: TurnContext,
  step: number,
  call: PlannedCompanionCall,
  wait: TurnWait,
): Promise<{ message: IndexedMessage } | WaitingCompanion> {
  const { scope, input } = context;
  const startedAt = await DBOS.now();
  const deadline = wait.timeoutMs === undefined ? undefined : startedAt + wait.timeoutMs;
  for (;;) {
    const now = await DBOS.now();
    const timedOut = deadline !== undefined && now >= deadline;
    const read = await CompanionStep.outcome({
      ...scope,
      step,
      call,
      name: wait.name,
      childSessionId: wait.childSessionId,
      ...(wait.turnRunId === undefined ? {} : { turnRunId: wait.turnRunId }),
      timedOut,
      rootSessionId: input.rootSessionId,
      ...(wait.callStartedAt === undefined ? {} : { callStartedAt: wait.callStartedAt }),
    });
    if (read.waitingCallIds !== undefined) {
      const startedAt = wait.callStartedAt === undefined ? {} : { startedAt: wait.callStartedAt };
      const parked: CompanionCallWait = { call, name: wait.name, childSessionId: wait.childSessionId, agentType: wait.agentType, ...startedAt };
      return { wait: parked, toolCallIds: read.waitingCallIds };
    }
    if (read.result !== undefined) {
      const message =
        read.outcome.kind === 'failed' ? errorMessage(call, `Companion ${wait.name} failed: ${read.outcome.error}`) : resultFor(call, read.result);
      return { message };
    }
    await companionDoneReceiver.receive(wait.childSessionId, deadline === undefined ? COMPANION_WAIT_MS : Math.min(COMPANION_WAIT_MS, deadline - now));
  }
}
