import { LLMCallError, HelixError, renderThrown, safeErrorOf, safeErrorText, type ErrorOrigin } from '../errors/index.js';
import { peekRuntimeDependencies } from './runtime-registry.js';

/**
 * The boundary form of an error (`CODE: message`, see `safeErrorText`), for what is stored, streamed, served or
 * returned as `AgentResult.error`. The error itself — message, stack, cause — goes to the executor's logger at
 * debug level only (`error.cause`), with `fields` (ids) to find it.
 *
 * @example
 * outcome = finished('failed', 'failed', step, { error: failureText(error, { source: 'internal' }, { sessionId }) });
 */
export function failureText(error: unknown, origin: ErrorOrigin, fields: Record<string, unknown> = {}): string {
  logCause(error, origin, fields);
  return safeErrorText(error, origin);
}

/**
 * A failed tool call's two renderings. `forModel` is the tool result the model reads (and the conversation
 * keeps): the tool's own message, bounded and redacted (`renderThrown`), since the model called its own tool.
 * `forStream` is the sanitized form for its `tool_end` chunk: a `HelixError`'s code and message, else `TOOL_ERROR`
 * with the error's class name only.
 *
 * @example
 * const failure = toolFailure('search', error, { sessionId, toolCallId });
 * outcome = { error: failure.forModel, streamed: failure.forStream };
 */
export function toolFailure(toolName: string, error: unknown, fields: Record<string, unknown> = {}): { forModel: string; forStream: string } {
  return { forModel: `Tool "${toolName}" failed: ${renderThrown(error)}`, forStream: failureText(error, { source: 'tool', toolName }, fields) };
}

/**
 * What a failed model call throws out of its step: a `HelixError` as it is (an adapter's `LLMCallError` keeps
 * `retryable`), anything else as a non-retryable `LLMCallError` with a generic message — the provider's text (which
 * may echo the prompt or the API key) never reaches DBOS's step record, the store or the stream. The original
 * error goes to the logger at debug level.
 *
 * @example
 * const result = await adapter.generateStep(input).catch((error: unknown) => { throw llmFailure(error, { sessionId }); });
 */
export function llmFailure(error: unknown, fields: Record<string, unknown> = {}): Error {
  if (HelixError.isInstance(error)) return error;
  logCause(error, { source: 'llm' }, fields);
  return new LLMCallError(safeErrorOf(error, { source: 'llm' }).message, { retryable: false });
}

function logCause(error: unknown, origin: ErrorOrigin, fields: Record<string, unknown>): void {
  peekRuntimeDependencies()?.logger.debug?.('error.cause', { ...fields, source: origin.source, cause: error });
}
