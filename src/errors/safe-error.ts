import { HelixError, type HelixErrorCode } from './helix-error.js';
import { clipText, redactSecrets } from './redact-secrets.js';

/** Longest message of an error that crosses a trust boundary (stored, streamed, served, in `AgentResult.error`). */
export const MAX_SAFE_ERROR_MESSAGE = 300;

/**
 * Where an error came from, which decides the code and wording of one that is not a `HelixError`: a model call
 * (`LLM_CALL_FAILED`), a tool's `execute` (`TOOL_ERROR`, naming the tool) or anything else (`INTERNAL_ERROR`).
 *
 * @example
 * const origin: ErrorOrigin = { source: 'tool', toolName: 'search' };
 */
export type ErrorOrigin = { source: 'llm' } | { source: 'tool'; toolName: string } | { source: 'internal' };

/**
 * An error as it may cross a trust boundary: a typed code and a bounded message free of provider text, prompts,
 * tool payloads and secrets.
 *
 * @example
 * const safe: SafeError = { code: 'LLM_CALL_FAILED', message: 'The LLM call failed (APICallError, status 401); …' };
 */
export interface SafeError {
  code: HelixErrorCode;
  message: string;
}

const CODE_OF: Readonly<Record<ErrorOrigin['source'], HelixErrorCode>> = { llm: 'LLM_CALL_FAILED', tool: 'TOOL_ERROR', internal: 'INTERNAL_ERROR' };
const NEXT_STEP = 'the cause is logged at debug level';
const CLASS_NAME = /^[A-Za-z_$][\w$.]{0,59}$/;
const ERROR_CODE = /^[A-Za-z0-9_.-]{1,40}$/;

/**
 * The boundary form of an error. A `HelixError` (also one DBOS revived as a plain `Error`) keeps its code and its
 * own message, which is written payload-free. Anything else (a provider error, a user tool's error, a thrown
 * string) gets a generic message by origin with the error's class name, `code` and HTTP status when it has them,
 * never its message: `LLM_CALL_FAILED` "The LLM call failed (APICallError, status 401); …". Either message has
 * secret-looking tokens redacted and is at most {@link MAX_SAFE_ERROR_MESSAGE} characters.
 *
 * @example
 * safeErrorOf(new Error('bad key sk-live-123456'), { source: 'llm' });
 * // { code: 'LLM_CALL_FAILED', message: 'The LLM call failed (Error); the cause is logged at debug level.' }
 */
export function safeErrorOf(error: unknown, origin: ErrorOrigin): SafeError {
  if (HelixError.isInstance(error)) return { code: error.code, message: boundedMessage(error.message) };
  const what = classDetails(error);
  const message =
    origin.source === 'llm'
      ? `The LLM call failed (${what}); ${NEXT_STEP}.`
      : origin.source === 'tool'
        ? `Tool "${clipText(origin.toolName, 64)}" failed (${what}); ${NEXT_STEP}.`
        : `The operation failed (${what}); ${NEXT_STEP}.`;
  return { code: CODE_OF[origin.source], message: boundedMessage(message) };
}

/**
 * {@link safeErrorOf} as one line, `CODE: message`: the form of `AgentResult.error`, the stored session and run
 * error, the stream's `error` chunk and a failed tool's `tool_end` chunk.
 *
 * @example
 * safeErrorText(new TypeError('x is undefined'), { source: 'internal' });
 * // 'INTERNAL_ERROR: The operation failed (TypeError); the cause is logged at debug level.'
 */
export function safeErrorText(error: unknown, origin: ErrorOrigin): string {
  const safe = safeErrorOf(error, origin);
  return `${safe.code}: ${safe.message}`;
}

/**
 * A text already meant for a boundary (e.g. a stored error), made safe again: secret-looking tokens redacted,
 * at most {@link MAX_SAFE_ERROR_MESSAGE} characters. Defense in depth where a text of unknown origin is served.
 *
 * @example
 * boundedMessage('Bearer abc.def.ghi rejected'); // '[redacted] rejected'
 */
export function boundedMessage(text: string): string {
  // Clipped first so the patterns never scan a huge text; clipped again after redaction shortened or lengthened it.
  return clipText(redactSecrets(clipText(text, MAX_SAFE_ERROR_MESSAGE * 4)), MAX_SAFE_ERROR_MESSAGE);
}

/** `APICallError, status 401`, `Error ECONNRESET`, `a thrown string`: what may be said of an unknown error. */
function classDetails(error: unknown): string {
  if (!(error instanceof Error)) return error === null ? 'a thrown null' : `a thrown ${typeof error}`;
  const name = CLASS_NAME.test(error.name) ? error.name : 'Error';
  const fields = error as { code?: unknown; status?: unknown; statusCode?: unknown };
  const code = typeof fields.code === 'string' && ERROR_CODE.test(fields.code) ? ` ${fields.code}` : '';
  const status = [fields.statusCode, fields.status].find((value) => Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599);
  return `${name}${code}${status === undefined ? '' : `, status ${status as number}`}`;
}
