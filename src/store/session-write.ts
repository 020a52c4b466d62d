import type { CreateSessionOptions, InterruptContext, SessionState, SessionStateWrite, SessionStatus } from '../types/session.js';
import { InvalidArgumentError } from '../errors/index.js';
import { cloneJson } from '../database/json.js';
import { assertSessionStatus } from './validation.js';

/** Fields a write may not change (identity and bookkeeping owned by the store). */
const IMMUTABLE_FIELDS = new Set(['sessionId', 'version', 'createdAt', 'updatedAt']);
/** Required fields: an explicit `undefined`/`null` leaves them unchanged instead of clearing them. */
const REQUIRED_FIELDS = new Set(['agentType', 'customState', 'status', 'stepCount', 'resumeCount']);
/** Fields whose `null` is a value to store (an agent may legitimately output `null`), not a clear. */
const NULL_VALUE_FIELDS = new Set(['output']);

/**
 * The state of a freshly created session (version 1, no messages, no checkpoint). Values are deep-copied.
 *
 * @example
 * const state = createInitialSessionState('s1', { agentType: 'assistant' }, Date.now());
 */
export function createInitialSessionState<TState>(
  sessionId: string,
  options: CreateSessionOptions<TState>,
  now: number,
): SessionState<TState> {
  if (options.status !== undefined) assertSessionStatus(options.status, 'status');
  const state: SessionState<TState> = {
    sessionId,
    agentType: options.agentType,
    customState: cloneJson(options.customState ?? ({} as TState), 'customState'),
    status: options.status ?? 'active',
    stepCount: 0,
    version: 1,
    resumeCount: 0,
    createdAt: now,
    updatedAt: now,
  };
  const optional = {
    streamId: options.streamId,
    mode: options.mode,
    parentSessionId: options.parentSessionId,
    rootSessionId: options.rootSessionId,
    userId: options.userId,
    tags: options.tags,
    metadata: options.metadata,
    expiresAt: options.expiresAt,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) (state as unknown as Record<string, unknown>)[key] = cloneJson(value, key);
  }
  return state;
}

/**
 * Apply a partial write to a session state and return the next state (version + 1, `updatedAt` = now).
 *
 * Semantics: a key that is absent is left unchanged; a key present with `undefined` or `null` clears an
 * optional field (except `output`, where `null` is stored as a value); identity fields (`sessionId`, `version`, `createdAt`, `updatedAt`) are ignored; `mode`
 * is write-once (a session that has a mode keeps it). Values are deep-copied (InvalidArgumentError when
 * not JSON-serializable).
 *
 * @example
 * const next = applySessionWrite(current, { status: 'completed', output: { answer: 42 } }, Date.now());
 */
export function applySessionWrite<TState, TOutput>(
  current: SessionState<TState, TOutput>,
  write: SessionStateWrite<TState, TOutput>,
  now: number,
): SessionState<TState, TOutput> {
  const next = { ...current } as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(write)) {
    if (IMMUTABLE_FIELDS.has(key)) continue;
    if (key === 'mode' && current.mode !== undefined) continue;
    if (key === 'status' && value !== undefined && value !== null) assertSessionStatus(value, 'status');
    if (value === undefined || (value === null && !NULL_VALUE_FIELDS.has(key))) {
      if (!REQUIRED_FIELDS.has(key)) delete next[key];
      continue;
    }
    next[key] = cloneJson(value, key);
  }
  next.version = current.version + 1;
  next.updatedAt = now;
  return next as unknown as SessionState<TState, TOutput>;
}

/**
 * Merge a metadata patch: string values set keys, `null` deletes them. Throws InvalidArgumentError when a
 * value is neither a string nor null.
 *
 * @example
 * mergeMetadata({ a: '1' }, { a: null, b: '2' }); // { b: '2' }
 */
export function mergeMetadata(
  current: Record<string, string> | undefined,
  patch: Record<string, string | null>,
): Record<string, string> {
  assertMetadataPatch(patch);
  const next: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/**
 * Throw InvalidArgumentError unless every value of a metadata patch is a string or null.
 *
 * @example
 * assertMetadataPatch({ dbosWorkflowId: 'wf-1', stale: null });
 */
export function assertMetadataPatch(patch: Record<string, unknown>): asserts patch is Record<string, string | null> {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new InvalidArgumentError('metadata patch must be an object of string or null values.', { field: 'metadata' });
  }
  for (const value of Object.values(patch)) {
    if (value !== null && typeof value !== 'string') {
      throw new InvalidArgumentError('metadata values must be strings (or null to delete a key).', { field: 'metadata' });
    }
  }
}

/**
 * Context `updateStatus` / `compareAndSetStatus` may record with a status change.
 *
 * @example
 * const context: StatusContext = { error: 'Tool crashed', failureReason: 'parent_suspended' };
 */
export interface StatusContext {
  interruptContext?: InterruptContext;
  error?: string;
  failureReason?: string;
}

/**
 * The session write of a status change: the status plus each defined context field.
 *
 * @example
 * statusWrite('interrupted', { interruptContext: { reason: 'stop', interruptedAt: Date.now() } });
 */
export function statusWrite(status: SessionStatus, context: StatusContext = {}): SessionStateWrite {
  const write: SessionStateWrite = { status };
  if (context.interruptContext !== undefined) write.interruptContext = context.interruptContext;
  if (context.error !== undefined) write.error = context.error;
  if (context.failureReason !== undefined) write.failureReason = context.failureReason;
  return write;
}
