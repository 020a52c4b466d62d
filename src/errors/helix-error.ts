/** Every error code this package throws. */
export const HELIX_ERROR_CODES = [
  'SESSION_ID_REQUIRED',
  'SESSION_ALREADY_EXISTS',
  'SESSION_NOT_FOUND',
  'STALE_STATE',
  'INVALID_AGENT_CONFIG',
  'INVALID_TOOL_CONFIG',
  'APP_DATABASE_NOT_CONFIGURED',
  'APP_DATABASE_AFTER_LAUNCH',
  // Queued runs (a fleet of workers)
  'QUEUE_NOT_REGISTERED',
  'QUEUE_NOT_SUPPORTED',
  'NO_LLM_ADAPTER',
  'EXECUTOR_ID_IN_USE',
  'INVALID_INPUT',
  'INVALID_ARGUMENT',
  'LLM_CALL_FAILED',
  'STREAM_NOT_FOUND',
  'STREAM_CLOSED',
  'STORE_ERROR',
  'MIGRATION_FAILED',
  'DBOS_MODE_MISMATCH',
  'DBOS_WORKFLOW_NOT_FOUND',
  'DBOS_PERSISTENT_SESSION_TERMINATED',
  'AGENT_ALREADY_RUNNING',
  'WORKSPACE_UNSUPPORTED',
  'INVALID_SUBMISSION',
  'NOT_RESUMABLE',
  'SESSION_NOT_CONTINUABLE',
  'SESSION_AGENT_MISMATCH',
  'DBOS_STEP_CONTEXT',
  'DBOS_FORK_REFUSED',
  'JOURNAL_FORMAT_UNSUPPORTED',
  // A tool's error that is not a HelixError, as streamed and stored (see safeErrorOf); a tool's broken contract (ToolContractError)
  'TOOL_ERROR',
  // A step waited in vain for the executor or an agent registration in this process
  'RUNTIME_NOT_READY',
  // Agent server (helix-agents-dbos/server)
  'SERVER_AUTH_NOT_CONFIGURED',
  'UNAUTHENTICATED',
  'INVALID_REQUEST',
  'PAYLOAD_TOO_LARGE',
  'AGENT_NOT_FOUND',
  'NO_ACTIVE_RUN',
  'RUNTIME_NO_WORKSPACE_SUPPORT',
  'NOT_FOUND',
  'INTERNAL_ERROR',
  // Operator CLI
  'CLI_USAGE',
  'CLI_NOT_CONFIGURED',
  'CLI_UNSUPPORTED_IN_MODE',
  'CLI_SERVER_ROUTE_MISSING',
  'CLI_CONNECTION_FAILED',
  'CLI_SERVER_ERROR',
  'CLI_CALL_NOT_FOUND',
  'CLI_ALREADY_ANSWERED',
  'CLI_NO_OPEN_CALLS',
  'CLI_CONSOLE_REQUIRED',
  // Console
  'SESSION_LISTING_UNSUPPORTED',
  'CHECKPOINT_NOT_FOUND',
  'NOT_A_ROOT_SESSION',
  // Remote sub-agents
  'REMOTE_TRANSPORT_ERROR',
  'REMOTE_SUBAGENT_CLIENT_TOOL_UNSUPPORTED',
] as const;

/**
 * Every error code this package throws.
 *
 * @example
 * if (HelixError.isInstance(error) && error.code === 'STALE_STATE') reload();
 */
export type HelixErrorCode = (typeof HELIX_ERROR_CODES)[number];

/**
 * Base class of every error this package throws: a stable `code`, an optional JSON `data` payload
 * (ids only — never prompts, tool payloads or secrets) and the original `cause`.
 *
 * DBOS revives errors replayed from its database as plain `Error`s, so `instanceof` fails after recovery;
 * use the static `isInstance` of each subclass, which matches on `name` and `code`.
 *
 * @example
 * try { await store.createSession(id, { agentType: 'a' }); }
 * catch (error) { if (SessionAlreadyExistsError.isInstance(error)) { … } }
 */
export class HelixError extends Error {
  readonly code: HelixErrorCode;
  readonly data?: Record<string, unknown>;

  constructor(code: HelixErrorCode, message: string, options?: { cause?: unknown; data?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HelixError';
    this.code = code;
    if (options?.data !== undefined) this.data = options.data;
  }

  /** True for any HelixError, including ones revived by DBOS as plain `Error`s that kept a known `code`. */
  static isInstance(error: unknown): error is HelixError {
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    return error instanceof Error && typeof code === 'string' && KNOWN_CODES.has(code);
  }
}

const KNOWN_CODES: ReadonlySet<string> = new Set(HELIX_ERROR_CODES);

/** @internal True when `error` is an object whose `code` is `code` (or any string, when `code` is omitted). */
export function hasCode(error: unknown, code?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = (error as { code?: unknown }).code;
  return code === undefined ? typeof candidate === 'string' : candidate === code;
}
