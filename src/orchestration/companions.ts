import type { ResolvedPersistentAgent } from '../agent/index.js';
import type { RunStatus, SessionStatus, SubSessionRef } from '../types/session.js';
import { childRunId } from './ids.js';
import type { PlannedCompanionCall } from './step-plan-types.js';

/**
 * What a message to a named companion does, decided from its session and ref:
 * - `spawn`: no such child yet — create it;
 * - `respawn`: the child failed or was terminated — delete its session and create it fresh;
 * - `message`: the child is running, idle after a completed turn, or interrupted — its session gets the message
 *   as its next turn (queued into the inbox of a live workflow, or a continuation workflow on the preserved session);
 * - `refuse_running`: `spawnAgent` with the name of a running child (use `sendMessage`);
 * - `refuse_waiting_human`: the child's turn waits for a human (answer it first);
 * - `refuse_other_type`: the name belongs to a child of another agent type;
 * - `unknown_child`: `sendMessage` to a name without a child.
 *
 * @example
 * decideCompanionTarget('sendMessage', 'researcher', { agentType: 'researcher', status: 'completed', parked: false }); // 'message'
 */
export type CompanionTargetAction = 'spawn' | 'respawn' | 'message' | 'refuse_running' | 'refuse_waiting_human' | 'refuse_other_type' | 'unknown_child';

/** The child session as the decision sees it (`null` when it does not exist). */
export interface CompanionChildView {
  agentType: string;
  status: SessionStatus;
  /** Its current turn waits for a human (parked or warm). */
  parked: boolean;
  /** `failureReason` of a failed session (`aborted` for a terminated one). */
  failureReason?: string;
  /** The ref in the parent says `terminated`. */
  terminated?: boolean;
}

/**
 * Table of what a `spawnAgent` / `sendMessage` call does with the named child. Pure.
 *
 * @example
 * decideCompanionTarget('spawnAgent', 'researcher', null); // 'spawn'
 */
export function decideCompanionTarget(action: 'spawnAgent' | 'sendMessage', agentType: string | undefined, child: CompanionChildView | null): CompanionTargetAction {
  if (child === null) return action === 'spawnAgent' ? 'spawn' : 'unknown_child';
  if (agentType !== undefined && child.agentType !== agentType) return 'refuse_other_type';
  if (child.terminated === true || child.status === 'failed') return 'respawn';
  if (child.parked) return 'refuse_waiting_human';
  if (child.status === 'active' || child.status === 'paused') return action === 'spawnAgent' ? 'refuse_running' : 'message';
  return 'message';
}

/**
 * The ref status of a companion given its current turn's run status (`running` while a turn runs).
 *
 * @example
 * companionRefStatus('aborted'); // 'terminated'
 */
export function companionRefStatus(status: RunStatus): SubSessionRef['status'] {
  switch (status) {
    case 'completed':
    case 'failed':
    case 'interrupted':
    case 'running':
      return status;
    case 'aborted':
      return 'terminated';
    default:
      return 'paused_awaiting_client';
  }
}

/**
 * Auto-name of a spawned child without a name: `${agentType}-${n}`, the first n ≥ 1 not used by a ref. Pure, so a
 * step computes the same name when re-run against the same refs.
 *
 * @example
 * autoCompanionName('researcher', [{ name: 'researcher-1' }]); // 'researcher-2'
 */
export function autoCompanionName(agentType: string, refs: ReadonlyArray<Pick<SubSessionRef, 'name'>>): string {
  const taken = new Set(refs.map((ref) => ref.name));
  for (let n = 1; ; n += 1) {
    const candidate = `${agentType}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The persistent agent entry the model named in `spawnAgent` (by `name`, the agent type the model sees).
 *
 * @example
 * findPersistentAgent(agent.persistentAgents, 'researcher')?.mode; // 'blocking'
 */
export function findPersistentAgent(entries: readonly ResolvedPersistentAgent[] | undefined, name: string): ResolvedPersistentAgent | undefined {
  return entries?.find((entry) => entry.name === name);
}

/**
 * Run id of the companion turn a parent's call sends: deterministic per (parent run, call), so a re-run step and
 * the inbox idempotency key agree.
 *
 * @example
 * companionTurnRunId('run-1', 'call_1'); // 'run-sub-…'
 */
export function companionTurnRunId(parentRunId: string, toolCallId: string): string {
  return childRunId(parentRunId, toolCallId);
}

/**
 * Workflow id of a companion created by a call: `${childSessionId}-spawn-${toolCallId}` (a re-spawned child never
 * collides with its earlier workflow).
 *
 * @example
 * companionSpawnWorkflowId('s1-agent-r', 'call_1'); // 's1-agent-r-spawn-call_1'
 */
export function companionSpawnWorkflowId(childSessionId: string, toolCallId: string): string {
  return `${childSessionId}-spawn-${toolCallId}`;
}

/**
 * Workflow id of a companion continuation started by a call: `${childSessionId}-continue-${toolCallId}` (the
 * reference's id; DBOS de-duplicates a replayed start).
 *
 * @example
 * companionContinueWorkflowId('s1-agent-r', 'call_2'); // 's1-agent-r-continue-call_2'
 */
export function companionContinueWorkflowId(childSessionId: string, toolCallId: string): string {
  return `${childSessionId}-continue-${toolCallId}`;
}

/**
 * What the model is told about a companion's ended turn. JSON only.
 *
 * @example
 * const outcome: CompanionTurnOutcome = { kind: 'completed', output: { answer: 42 } };
 */
export type CompanionTurnOutcome =
  | { kind: 'completed'; output: unknown }
  | { kind: 'failed'; error: string }
  | { kind: 'interrupted' }
  | { kind: 'terminated' }
  | { kind: 'waiting_for_human' }
  | { kind: 'running' };

/**
 * The outcome of a companion turn from its run record (status, output kept with the run, error). Pure.
 *
 * @example
 * turnOutcomeOf({ status: 'failed', error: 'boom' }); // { kind: 'failed', error: 'boom' }
 */
export function turnOutcomeOf(run: { status: RunStatus; error?: string; output?: unknown }): CompanionTurnOutcome {
  switch (run.status) {
    case 'completed':
      return { kind: 'completed', output: run.output ?? null };
    case 'failed':
      return { kind: 'failed', error: run.error ?? 'no error text' };
    case 'interrupted':
      return { kind: 'interrupted' };
    case 'aborted':
      return { kind: 'terminated' };
    case 'running':
      return { kind: 'running' };
    default:
      return { kind: 'waiting_for_human' };
  }
}

/**
 * The tool result a companion outcome gives the model: `{ name, status, output? , error? }`; a failure is a failure
 * (never reported completed).
 *
 * @example
 * companionResult('r-1', { kind: 'failed', error: 'boom' }); // { name: 'r-1', status: 'failed', error: 'boom' }
 */
export function companionResult(name: string, outcome: CompanionTurnOutcome): Record<string, unknown> {
  switch (outcome.kind) {
    case 'completed':
      return { name, status: 'completed', output: outcome.output };
    case 'failed':
      return { name, status: 'failed', error: outcome.error };
    case 'waiting_for_human':
      return { name, status: 'paused_awaiting_client', note: 'The child waits for a human to answer a tool call.' };
    default:
      return { name, status: outcome.kind };
  }
}

/**
 * The user message that delivers a non-blocking companion's outcome into the parent's next turn.
 *
 * @example
 * deliveryText('r-1', 'researcher', { kind: 'completed', output: 'x' });
 */
export function deliveryText(name: string, agentType: string, outcome: CompanionTurnOutcome): string {
  return `[companion ${name} (${agentType}) finished] ${JSON.stringify(companionResult(name, outcome))}`;
}

/** Ref statuses whose outcome is delivered to the parent once (a turn that ended). */
export const DELIVERABLE_REF_STATUSES: ReadonlyArray<SubSessionRef['status']> = ['completed', 'failed', 'interrupted', 'terminated'];

/**
 * A companion's turn ended: wakes the parent run waiting for it (the run record is the source of truth).
 *
 * @example
 * const message: CompanionDoneMessage = { kind: 'companion_done', childSessionId: 's1-agent-r', runId: 'run-sub-…' };
 */
export interface CompanionDoneMessage {
  kind: 'companion_done';
  childSessionId: string;
  runId: string;
}

/**
 * The DBOS topic on which a parent's run hears about a companion's ended turns.
 *
 * @example
 * companionTopic('s1-agent-r'); // 'companion:s1-agent-r'
 */
export function companionTopic(childSessionId: string): string {
  return `companion:${childSessionId}`;
}

/**
 * A blocking companion call whose child's turn parked waiting for a human: the parent's step parks
 * `suspended_awaiting_children` with it (kept in `SuspensionRecord.companionCalls`), and the parent's resume
 * continues the child's turn and hands its real result to this call.
 *
 * @example
 * const wait: CompanionCallWait = { call, name: 'k', childSessionId: 's1-agent-k', agentType: 'clerk' };
 */
export interface CompanionCallWait {
  call: PlannedCompanionCall;
  name: string;
  childSessionId: string;
  agentType: string;
  /** When the call began (its `execute_tool` span's start); absent in waits recorded before. */
  startedAt?: number;
}

/**
 * What a resumed parent does with a companion its parked step waited for (the cascade of ephemeral children, for a
 * persistent child):
 * - `wait_ours`: this parent run already continued the child (a re-run of the step) — wait for that turn;
 * - `continue`: the child's turn is parked for a human — resume it (a new turn on its session) and wait for it;
 * - `wait_current`: a turn of the child runs (resumed from elsewhere) — wait for it;
 * - `drain`: the child's turn ended (completed, failed, interrupted, terminated, gone) — its outcome is the result.
 *
 * @example
 * decideCompanionCascade({ exists: true, terminated: false, parked: true, runStatus: 'suspended_client_tool', ourTurn: false }); // 'continue'
 */
export type CompanionCascadeAction = 'wait_ours' | 'continue' | 'wait_current' | 'drain';

/** The awaited companion as `decideCompanionCascade` sees it. */
export interface CompanionCascadeView {
  /** Its session exists. */
  exists: boolean;
  /** Terminated: its ref says so, or its session was aborted. */
  terminated: boolean;
  /** Its current turn waits for a human, parked (session active with a suspended step, run parked). */
  parked: boolean;
  /** Status of its current run (`null`: none). */
  runStatus: RunStatus | null;
  /** The turn this parent run gives it (`companionTurnRunId(parentRunId, toolCallId)`) is recorded or queued. */
  ourTurn: boolean;
}

/**
 * Table of what a resumed parent does with an awaited companion. Pure.
 *
 * @example
 * decideCompanionCascade({ exists: true, terminated: false, parked: false, runStatus: 'completed', ourTurn: false }); // 'drain'
 */
export function decideCompanionCascade(view: CompanionCascadeView): CompanionCascadeAction {
  if (!view.exists) return 'drain';
  if (view.ourTurn) return 'wait_ours';
  if (view.terminated) return 'drain';
  if (view.parked) return 'continue';
  return view.runStatus === 'running' ? 'wait_current' : 'drain';
}

/**
 * Workflow id of the generation that resumes a parked companion turn for a parent's run:
 * `${childSessionId}-resume-${turnRunId}` (the turn's run id is per parent run and call, so every resume of the
 * parent gets its own id, and a replayed start is de-duplicated).
 *
 * @example
 * companionResumeWorkflowId('s1-agent-k', 'run-sub-1a2b'); // 's1-agent-k-resume-run-sub-1a2b'
 */
export function companionResumeWorkflowId(childSessionId: string, turnRunId: string): string {
  return `${childSessionId}-resume-${turnRunId}`;
}
