import {
  AgentAlreadyRunningError,
  InvalidArgumentError,
  NotResumableError,
  SessionAgentMismatchError,
  SessionNotContinuableError,
  SessionNotFoundError,
  type HelixError,
} from '../errors/index.js';
import { assertValidSessionId } from '../orchestration/session-id.js';
import type { RefusalReason, SessionOperation, SessionView } from '../orchestration/session-transitions.js';

/**
 * The typed error of a refusal of the session state machine (`decideSessionOperation`).
 *
 * @example
 * if (decision.action === 'refuse') throw refusalError('resume', decision.reason, sessionId, view);
 */
export function refusalError(operation: SessionOperation, reason: RefusalReason, sessionId: string, view: SessionView): HelixError {
  switch (reason) {
    case 'not_found':
      return new SessionNotFoundError(sessionId);
    case 'aborted':
      return operation === 'execute'
        ? new SessionNotContinuableError(sessionId, 'aborted', 'an aborted session takes no new turns; retry() runs it again, or use a new sessionId.')
        : new NotResumableError(sessionId, 'aborted', 'an aborted session cannot be resumed; use retry() or a new session.');
    case 'awaiting_humans':
      return new AgentAlreadyRunningError(sessionId, 'suspended_client_tool');
    case 'not_continuable':
      return new SessionNotContinuableError(sessionId, view.status);
    case 'not_resumable':
      return new NotResumableError(sessionId, view.status, view.status === 'failed' ? 'use retry() for a failed session.' : 'use execute() to start a new turn.');
    case 'not_retryable':
      return new NotResumableError(sessionId, view.status, 'only a failed session can be retried.');
  }
}

/**
 * Check what a caller passes before anything is read or written: a valid session id (see
 * `assertValidSessionId`) and, once the session is loaded, the agent that created it.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for an invalid id.
 * @example
 * assertSessionId(sessionId);
 */
export function assertSessionId(sessionId: unknown): asserts sessionId is string {
  assertValidSessionId(sessionId);
}

/**
 * Every operation on a session uses the agent that created it.
 *
 * @throws SessionAgentMismatchError `SESSION_AGENT_MISMATCH` for another agent type.
 * @example
 * assertSessionAgent(state, agent.name);
 */
export function assertSessionAgent(state: { sessionId: string; agentType: string } | null, agentType: string): void {
  if (state !== null && state.agentType !== agentType) throw new SessionAgentMismatchError(state.sessionId, state.agentType, agentType);
}

/**
 * Every entry point takes the agent's config (what `defineAgent()` returns), not its name: a string or another value
 * is refused before anything is read or written.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` when `agent` is not an agent config.
 * @example
 * assertAgentConfig(agent, 'execute');
 */
export function assertAgentConfig(agent: unknown, operation: string): void {
  const config = agent as { name?: unknown; systemPrompt?: unknown } | null;
  if (typeof agent === 'object' && config !== null && typeof config.name === 'string' && config.name !== '') return;
  const given = agent === null ? 'null' : typeof agent === 'string' ? 'a string (an agent name?)' : typeof agent;
  throw new InvalidArgumentError(`${operation}() expects the agent's config from defineAgent() as its first argument, not ${given}.`, { field: 'agent' });
}
