import { InvalidArgumentError } from '../errors/index.js';
import type { CreateRunInput, RunRecord, RunStatus, SubSessionRef } from '../types/session.js';
import { cloneJson } from '../database/json.js';
import { assertIdentifier } from './validation.js';

/**
 * Fields `updateRunStatus` may change besides the status.
 *
 * @example
 * const patch: RunPatch = { endedAt: Date.now(), completionReason: 'finish_tool' };
 */
export type RunPatch = Partial<Pick<RunRecord, 'stepCount' | 'completionReason' | 'error' | 'endedAt' | 'metadata' | 'workflowId'>>;

/**
 * Fields `updateSubSessionRef` may change.
 *
 * @example
 * const patch: SubSessionRefPatch = { status: 'completed', completionDelivered: true };
 */
export type SubSessionRefPatch = Partial<Omit<SubSessionRef, 'subSessionId' | 'startedAt'>>;

/**
 * Apply a run status update: the status plus every defined field of `patch` (deep-copied).
 *
 * @example
 * const next = applyRunPatch(run, 'completed', { endedAt: Date.now(), completionReason: 'finish_tool' });
 */
export function applyRunPatch(run: RunRecord, status: RunStatus, patch: RunPatch = {}): RunRecord {
  const next: RunRecord = { ...run, status };
  // A run running (again: a resumed cancelled workflow) has no outcome yet.
  if (status === 'running') {
    delete next.completionReason;
    delete next.error;
    delete next.endedAt;
  }
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = cloneJson(value, `run.${key}`);
  }
  return next;
}

/**
 * Apply a sub-session ref patch: every defined field (deep-copied); `completedAt` defaults to `now` when the
 * patch moves the ref to a terminal status (completed, failed, interrupted, terminated).
 *
 * @example
 * const next = applySubSessionRefPatch(ref, { status: 'completed', completionDelivered: true }, Date.now());
 */
export function applySubSessionRefPatch(ref: SubSessionRef, patch: SubSessionRefPatch, now: number): SubSessionRef {
  if (patch.remote !== undefined) assertRemote(patch.remote);
  const terminal = patch.status !== undefined && patch.status !== 'running' && patch.status !== 'paused_awaiting_client';
  const next: SubSessionRef = { ...ref, ...(terminal ? { completedAt: now } : {}) };
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'subSessionId' || key === 'startedAt' || value === undefined) continue;
    (next as unknown as Record<string, unknown>)[key] = cloneJson(value, `subSessionRef.${key}`);
  }
  return next;
}

/**
 * The run record `createRun` stores: the input deep-copied (undefined fields dropped) with the session id
 * and `nextTurn`. Throws InvalidArgumentError when the input names a different turn.
 *
 * @example
 * const run = buildRunRecord('s1', { runId: 'r1', status: 'running', stepCount: 0, startSequence: 0, startedAt: Date.now() }, 1);
 */
export function buildRunRecord(sessionId: string, input: CreateRunInput, nextTurn: number): RunRecord {
  assertIdentifier(input.runId, 'runId');
  if (input.turn !== undefined && input.turn !== nextTurn) {
    throw new InvalidArgumentError('turn must be omitted or equal the next contiguous turn of the session.', { field: 'turn' });
  }
  const copy = cloneJson(input, 'run');
  return { ...copy, sessionId, turn: nextTurn, stepCount: copy.stepCount ?? 0, startSequence: copy.startSequence ?? 0 };
}

/**
 * A deep copy of a sub-session ref to insert; throws InvalidArgumentError for a missing id or bad mode.
 *
 * @example
 * const row = prepareSubSessionRef({ subSessionId: 'c1', agentType: 'child', parentToolCallId: 't1', mode: 'ephemeral', status: 'running', startedAt: Date.now() });
 */
export function prepareSubSessionRef(ref: SubSessionRef): SubSessionRef {
  assertIdentifier(ref.subSessionId, 'subSessionId');
  if (ref.mode !== 'ephemeral' && ref.mode !== 'persistent') {
    throw new InvalidArgumentError('mode must be ephemeral or persistent.', { field: 'mode' });
  }
  if (ref.remote !== undefined) assertRemote(ref.remote);
  return cloneJson(ref, 'subSessionRef');
}

/** `remote` of a sub-session ref: a stream id (1–1,024 characters) and a non-negative integer sequence. */
function assertRemote(remote: unknown): void {
  const { streamId, lastSequence } = (typeof remote === 'object' && remote !== null ? remote : {}) as { streamId?: unknown; lastSequence?: unknown };
  if (typeof streamId !== 'string' || streamId.length === 0 || streamId.length > 1_024 || !Number.isSafeInteger(lastSequence) || (lastSequence as number) < 0) {
    throw new InvalidArgumentError('remote must be { streamId: a string of 1–1,024 characters, lastSequence: a non-negative integer }.', { field: 'remote' });
  }
}
