import type { AnyAgentConfig } from '../agent/index.js';
import type { HookManager } from '../hooks/hook-manager.js';
import { messageId } from '../orchestration/ids.js';
import { planStepProcessing } from '../orchestration/plan-step-processing.js';
import { soleToolCommit } from '../orchestration/sole-tool-commit.js';
import type { StepDecisionResult } from '../orchestration/step-decision-result.js';
import type { SqlConnection } from '../store/postgres/database.js';
import type { PendingStep } from '../store/postgres/pending-step.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { SessionState } from '../types/session.js';
import type { RunScope } from './step-scope.js';
import type { RecordOutcome, StepRecord } from './step-record.js';
import { commitJoinsRecord, type StepWitnessStore } from './tool-step-commit.js';

/** A store that can keep an LLM step's record in the session row (`PostgresStateStore`). */
interface PendingStepStore extends StepWitnessStore {
  recordPendingStepOn(connection: SqlConnection, sessionId: string, pending: PendingStep): Promise<{ onCommitted(outcome: RecordOutcome): void }>;
  loadStateForStep(sessionId: string): Promise<SessionState | null>;
}

/**
 * The session for an LLM step that got no commit report (a run's first step, or another process's): through the
 * store's `loadStateForStep` when it has one (it primes the step's commit, so that needs no locked read).
 *
 * @example
 * const state = await loadStepState(stateStore, 's1');
 */
export function loadStepState(stateStore: SessionStateStore, sessionId: string): Promise<SessionState | null> {
  const store = stateStore as Partial<PendingStepStore>;
  return typeof store.loadStateForStep === 'function' ? store.loadStateForStep(sessionId) : stateStore.loadState(sessionId);
}

/**
 * Whether this LLM step may keep its record in the session row instead of a DBOS row: the store supports it and joins
 * the step's record, the step carries no earlier step's commit, and the step's result is all its workflow reads (no
 * `stopWhen`, so a committed step's result is its assistant message) — the same conditions under which its tool step
 * can commit the agent step (no onMessage/afterTool hook).
 *
 * @example
 * const witnessed = await mayWitnessLLMStep(stateStore, hooks, record, agent, input.commit !== undefined);
 */
export async function mayWitnessLLMStep(
  stateStore: SessionStateStore,
  hooks: Pick<HookManager, 'hasHooks'>,
  record: StepRecord,
  agent: Pick<AnyAgentConfig, 'stopWhen'>,
  carriesCommit: boolean,
): Promise<boolean> {
  if (carriesCommit || agent.stopWhen !== undefined) return false;
  if (typeof (stateStore as Partial<PendingStepStore>).recordPendingStepOn !== 'function') return false;
  return commitJoinsRecord(stateStore, hooks, record);
}

/**
 * On a possible replay of a step that may have been witnessed: its result when an earlier execution recorded it in the
 * session row (still the pending step) or committed its agent step (read back from the assistant message); else
 * `undefined` (the model is called).
 *
 * @example
 * const earlier = await witnessedEarlier(stateStore, input);
 */
export async function witnessedEarlier(stateStore: SessionStateStore, scope: RunScope & { step: number }): Promise<StepDecisionResult | undefined> {
  const { pending, message: assistant } = await (stateStore as unknown as PendingStepStore).readStepWitness(scope.sessionId, messageId(scope.runId, scope.step, 0));
  if (pending !== undefined && pending.runId === scope.runId && pending.step === scope.step) return pending.result as StepDecisionResult;
  if (assistant?.role !== 'assistant') return undefined;
  return {
    text: assistant.content,
    toolCalls: assistant.toolCalls ?? [],
    ...(assistant.thinking === undefined ? {} : { thinking: assistant.thinking }),
  };
}

/**
 * When `decision` makes a step whose sole tool call commits it (`soleToolCommit`), record it in the session row with
 * the step's other writes (`witnessedByWrites`: no DBOS row); otherwise the step keeps its DBOS row.
 *
 * @example
 * witnessInSessionRow(record, stateStore, agent, input, decision);
 */
export function witnessInSessionRow(
  record: StepRecord,
  stateStore: SessionStateStore,
  agent: AnyAgentConfig,
  scope: RunScope & { step: number },
  decision: StepDecisionResult,
): void {
  const plan = planStepProcessing(decision, agent, { sessionId: scope.sessionId, runId: scope.runId, step: scope.step });
  if (soleToolCommit(plan, agent) === undefined) return;
  let written: { onCommitted(outcome: RecordOutcome): void } | undefined;
  record.witnessedByWrites();
  record.defer({
    within: async (connection) => {
      const pending: PendingStep = { runId: scope.runId, step: scope.step, result: decision };
      written = await (stateStore as unknown as PendingStepStore).recordPendingStepOn(connection, scope.sessionId, pending);
    },
    committed: (outcome) => written?.onCommitted(outcome),
  });
}
