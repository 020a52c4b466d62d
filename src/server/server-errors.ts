import { HelixError, hasCode } from '../errors/helix-error.js';

/**
 * Thrown by `new AgentServer(...)` without an `authenticate` hook and without `allowUnauthenticated: true`:
 * the server fails closed instead of serving every session to anyone.
 *
 * @example
 * try { createAgentServer({ executor, stateStore, streamManager, agents }); }
 * catch (error) { if (AgentServerAuthConfigurationError.isInstance(error)) console.error(error.message); }
 */
export class AgentServerAuthConfigurationError extends HelixError {
  constructor() {
    super(
      'SERVER_AUTH_NOT_CONFIGURED',
      'AgentServer needs an `authenticate` hook; pass `allowUnauthenticated: true` only for a server no untrusted client can reach.',
    );
    this.name = 'AgentServerAuthConfigurationError';
  }
  static override isInstance(error: unknown): error is AgentServerAuthConfigurationError {
    return hasCode(error, 'SERVER_AUTH_NOT_CONFIGURED');
  }
}

/**
 * Codes the agent server answers with, besides the executor's own (e.g. `AGENT_ALREADY_RUNNING` → 409).
 *
 * @example
 * if (body.error.code === ('NO_ACTIVE_RUN' satisfies AgentServerErrorCode)) showIdle();
 */
export type AgentServerErrorCode =
  | 'UNAUTHENTICATED'
  | 'INVALID_REQUEST'
  | 'PAYLOAD_TOO_LARGE'
  | 'AGENT_NOT_FOUND'
  | 'NO_ACTIVE_RUN'
  | 'RUNTIME_NO_WORKSPACE_SUPPORT'
  | 'SESSION_NOT_FOUND'
  | 'NOT_FOUND'
  | 'INTERNAL_ERROR'
  | 'SESSION_ALREADY_EXISTS'
  | ConsoleErrorCode;

/**
 * Codes only the console API answers with: 501 `SESSION_LISTING_UNSUPPORTED` (the state store has no `listSessions`),
 * 404 `CHECKPOINT_NOT_FOUND` (a branch from a checkpoint the session does not have), 409 `NOT_A_ROOT_SESSION` (run
 * control of a sub-agent's session: act on its root, which cascades to the tree).
 *
 * @example
 * if (body.error.code === ('NOT_A_ROOT_SESSION' satisfies ConsoleErrorCode)) openRoot();
 */
export type ConsoleErrorCode = 'SESSION_LISTING_UNSUPPORTED' | 'CHECKPOINT_NOT_FOUND' | 'NOT_A_ROOT_SESSION';

/**
 * An HTTP error answer of the agent server: `status` and a stable `code`, rendered as
 * `{ error: { code, message, issues? } }`. Messages never contain request payloads.
 *
 * @example
 * throw new AgentServerHttpError(409, 'NO_ACTIVE_RUN', 'The session has no running run to interrupt.');
 */
export class AgentServerHttpError extends HelixError {
  constructor(
    readonly status: 400 | 401 | 404 | 409 | 413 | 422 | 500 | 501,
    code: AgentServerErrorCode,
    message: string,
    readonly issues?: ReadonlyArray<{ path: string; code: string }>,
  ) {
    super(code, message);
    this.name = 'AgentServerHttpError';
  }
  static override isInstance(error: unknown): error is AgentServerHttpError {
    return error instanceof Error && error.name === 'AgentServerHttpError';
  }
}

/** @internal 404 for a session that does not exist or belongs to another principal (indistinguishable). */
export function sessionNotFound(): AgentServerHttpError {
  return new AgentServerHttpError(404, 'SESSION_NOT_FOUND', 'No session with this id exists for this principal.');
}
