import { SessionAlreadyExistsError } from '../../errors/index.js';
import type { CreateSessionOptions, SessionState } from '../../types/session.js';
import { cloneJson } from '../../database/json.js';
import { buildClonedSessionState } from '../session-clone.js';
import { createInitialSessionState } from '../session-write.js';
import { assertIdentifier } from '../validation.js';
import { resolveCheckpoint } from './checkpoints.js';
import { emptyRecord, type MemoryData } from './memory-data.js';

/**
 * Create a session; throws SessionAlreadyExistsError when the id is taken.
 *
 * @example
 * const state = createMemorySession(data, 's1', { agentType: 'assistant' });
 */
export function createMemorySession<TState>(
  data: MemoryData,
  sessionId: string,
  options: CreateSessionOptions<TState>,
): SessionState<TState> {
  assertIdentifier(sessionId, 'sessionId');
  assertIdentifier(options.agentType, 'agentType');
  if (data.sessions.has(sessionId)) throw new SessionAlreadyExistsError(sessionId);
  const state = createInitialSessionState(sessionId, options, Date.now());
  data.sessions.set(sessionId, emptyRecord(state as SessionState));
  return cloneJson(state, 'session');
}

/**
 * A deep copy of the session's state, or null.
 *
 * @example
 * const state = loadMemoryState(data, 's1');
 */
export function loadMemoryState<TState, TOutput>(data: MemoryData, sessionId: string): SessionState<TState, TOutput> | null {
  const record = data.find(sessionId);
  return record === undefined ? null : (cloneJson(record.state, 'session') as unknown as SessionState<TState, TOutput>);
}

/**
 * Copy a session into a new one (state, messages up to the checkpoint, that checkpoint).
 *
 * @example
 * const branch = cloneMemorySession(data, 's1', 's1-branch', { checkpointId: 'run-1:2' });
 */
export function cloneMemorySession(
  data: MemoryData,
  sourceSessionId: string,
  targetSessionId: string,
  options: { checkpointId?: string; agentType?: string } = {},
): SessionState {
  assertIdentifier(targetSessionId, 'targetSessionId');
  const source = data.require(sourceSessionId);
  const checkpoint = options.checkpointId === undefined ? null : resolveCheckpoint(source, options.checkpointId);
  if (data.sessions.has(targetSessionId)) throw new SessionAlreadyExistsError(targetSessionId);
  const state = buildClonedSessionState(source.state, targetSessionId, checkpoint, options.agentType, Date.now());
  const record = emptyRecord(state);
  const messageLimit = checkpoint === null ? source.messages.length : checkpoint.messageCount;
  record.messages = cloneJson(source.messages.slice(0, messageLimit), 'messages');
  if (checkpoint !== null) record.checkpoints = [{ ...cloneJson(checkpoint, 'checkpoint'), sessionId: targetSessionId }];
  data.sessions.set(targetSessionId, record);
  return cloneJson(state, 'session');
}
