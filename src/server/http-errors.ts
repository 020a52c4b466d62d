import type { Context } from 'hono';
import type { z } from 'zod';
import { HelixError } from '../errors/helix-error.js';
import { boundedMessage } from '../errors/safe-error.js';
import type { Logger } from '../hooks/types.js';
import { AgentServerHttpError } from './server-errors.js';

/** HTTP status of executor errors (their messages are payload-free by design, and bounded and redacted on the way out). */
const STATUS_OF_CODE: Readonly<Record<string, 400 | 404 | 409 | 422>> = {
  SESSION_NOT_FOUND: 404,
  SESSION_ID_REQUIRED: 400,
  INVALID_ARGUMENT: 400,
  INVALID_INPUT: 400,
  INVALID_SUBMISSION: 400,
  AGENT_ALREADY_RUNNING: 409,
  NOT_RESUMABLE: 409,
  SESSION_NOT_CONTINUABLE: 409,
  SESSION_AGENT_MISMATCH: 409,
  SESSION_ALREADY_EXISTS: 409,
  DBOS_MODE_MISMATCH: 409,
  STALE_STATE: 409,
  WORKSPACE_UNSUPPORTED: 422,
};

/** @internal The JSON error answer: `{ error: { code, message, issues? } }`; unknown errors become a generic 500. */
export function errorResponse(error: unknown, logger: Logger): Response {
  if (AgentServerHttpError.isInstance(error)) {
    const issues = error.issues === undefined ? {} : { issues: error.issues };
    return Response.json({ error: { code: error.code, message: error.message, ...issues } }, { status: error.status });
  }
  if (HelixError.isInstance(error)) {
    const status = STATUS_OF_CODE[error.code];
    if (status !== undefined) return Response.json({ error: { code: error.code, message: boundedMessage(error.message) } }, { status });
    logger.error('agent_server.error', { code: error.code });
  } else {
    logger.error('agent_server.error', { name: error instanceof Error ? error.name : typeof error });
  }
  return Response.json({ error: { code: 'INTERNAL_ERROR', message: 'The server could not complete the request.' } }, { status: 500 });
}

/** @internal Issues without the offending values: their path and zod code only. */
function issuesOf(error: z.ZodError): Array<{ path: string; code: string }> {
  return error.issues.slice(0, 20).map((issue) => ({ path: issue.path.map(String).join('.'), code: issue.code }));
}

/** @internal Parse a JSON body (an empty body counts as `{}`) and validate it; 400 `INVALID_REQUEST` otherwise. */
export async function parseBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim().length > 0) {
    try {
      value = JSON.parse(text);
    } catch {
      throw new AgentServerHttpError(400, 'INVALID_REQUEST', 'The request body is not valid JSON.');
    }
  }
  return validate(schema, value, 'The request body is invalid.');
}

/** @internal Validate the query string; 400 `INVALID_REQUEST` otherwise. */
export function parseQuery<T extends z.ZodType>(c: Context, schema: T): z.infer<T> {
  return validate(schema, c.req.query(), 'The query string is invalid.');
}

function validate<T extends z.ZodType>(schema: T, value: unknown, message: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AgentServerHttpError(400, 'INVALID_REQUEST', message, issuesOf(parsed.error));
  return parsed.data;
}
