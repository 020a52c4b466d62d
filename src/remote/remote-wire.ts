import { z } from 'zod';

/**
 * What POST /start of an `AgentServer` answers (201 new session, 200 existing one).
 *
 * @example
 * const started = startResponseSchema.parse(await response.json());
 */
export const startResponseSchema = z.object({
  sessionId: z.string(),
  runId: z.string(),
  streamId: z.string(),
  startSequence: z.number().int().min(0),
  created: z.boolean(),
});

/**
 * What GET /status of an `AgentServer` answers (the fields a remote parent reads; others pass through).
 *
 * @example
 * const status = statusResponseSchema.parse(await response.json());
 */
export const statusResponseSchema = z.looseObject({
  sessionId: z.string(),
  agentType: z.string(),
  status: z.string(),
  run: z.looseObject({ runId: z.string(), status: z.string() }).nullable(),
  output: z.unknown().optional(),
  error: z.string().optional(),
  failureReason: z.string().optional(),
  awaitingClientTool: z.boolean(),
  awaitingApproval: z.boolean(),
  stream: z.looseObject({ streamId: z.string(), status: z.string(), lastSequence: z.number().int().min(0) }),
});

/**
 * The error body of an `AgentServer` answer: `{ error: { code, message } }` (only the code is kept).
 *
 * @example
 * const code = errorResponseSchema.safeParse(body).data?.error.code;
 */
export const errorResponseSchema = z.object({ error: z.object({ code: z.string().regex(/^[A-Z_]{1,64}$/) }) });
