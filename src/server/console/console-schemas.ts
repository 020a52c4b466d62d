import { z } from 'zod';
import { CONSOLE_LIMITS } from './console-api.js';
import { sessionIdSchema } from '../wire-schemas.js';

const SESSION_STATUSES = ['active', 'completed', 'failed', 'interrupted', 'paused'] as const;
const toolCallIdSchema = z.string().min(1).max(300);
const reasonSchema = z.string().max(500);

/**
 * Query of `GET {path}/api/sessions`: `agent` (agent type), `status` (comma-separated session statuses),
 * `awaitingHuman` (`true`/`false`), `updatedSince` (epoch ms), `limit` (1–200, default 50) and `cursor` (a
 * `nextCursor`).
 *
 * @example
 * consoleSessionListQuerySchema.parse({ status: 'active,interrupted', limit: '20' }); // { status: ['active', 'interrupted'], limit: 20 }
 */
export const consoleSessionListQuerySchema = z.object({
  agent: z.string().min(1).max(200).optional(),
  status: z
    .string()
    .max(200)
    .transform((text) => text.split(',').map((part) => part.trim()))
    .pipe(z.array(z.enum(SESSION_STATUSES)).min(1).max(SESSION_STATUSES.length))
    .optional(),
  awaitingHuman: z
    .enum(['true', 'false'])
    .transform((text) => text === 'true')
    .optional(),
  updatedSince: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(CONSOLE_LIMITS.maxPage).optional(),
  cursor: z.string().min(1).max(1_000).optional(),
});

/**
 * Query of `GET {path}/api/sessions/:id`: the history page (`messageOffset` 0-based, default the last page;
 * `messageLimit` 1–500, default 200).
 *
 * @example
 * consoleSessionQuerySchema.parse({ messageOffset: '0', messageLimit: '50' });
 */
export const consoleSessionQuerySchema = z.object({
  messageOffset: z.coerce.number().int().min(0).optional(),
  messageLimit: z.coerce.number().int().min(1).max(CONSOLE_LIMITS.maxMessages).optional(),
});

/**
 * Body of `POST …/approve`: the approval to grant (an open `approval` call of the session or, on a root, of its tree).
 *
 * @example
 * consoleApproveSchema.parse({ toolCallId: 'call-1' });
 */
export const consoleApproveSchema = z.object({ toolCallId: toolCallIdSchema });

/**
 * Body of `POST …/deny`: the approval to refuse and why (the model reads the reason in the tool's error).
 *
 * @example
 * consoleDenySchema.parse({ toolCallId: 'call-1', reason: 'Too expensive' });
 */
export const consoleDenySchema = z.object({ toolCallId: toolCallIdSchema, reason: reasonSchema.optional() });

/**
 * Body of `POST …/submit`: a client tool's result (any JSON) or its error.
 *
 * @example
 * consoleSubmitSchema.parse({ toolCallId: 'call-2', result: { city: 'Oslo' } });
 */
export const consoleSubmitSchema = z.object({ toolCallId: toolCallIdSchema, result: z.unknown().optional(), error: z.string().max(2_000).optional() });

/**
 * Body of `POST …/interrupt` and `POST …/abort` (optional).
 *
 * @example
 * consoleControlSchema.parse({ reason: 'operator stop' });
 */
export const consoleControlSchema = z.object({ reason: reasonSchema.optional() });

/**
 * Body of `POST …/resume` (the executor's `ResumeOptions`; optional).
 *
 * @example
 * consoleResumeSchema.parse({ mode: 'with_message', message: 'Use metric units.' });
 */
export const consoleResumeSchema = z.object({
  mode: z.enum(['continue', 'with_message', 'with_confirmation', 'from_checkpoint']).optional(),
  message: z.string().min(1).max(100_000).optional(),
  checkpointId: z.string().min(1).max(300).optional(),
});

/**
 * Body of `POST …/retry` (empty).
 *
 * @example
 * consoleRetrySchema.parse({});
 */
export const consoleRetrySchema = z.object({});

/**
 * Body of `POST …/branch`: a new session from one of this session's checkpoints (default: its current state and
 * whole history), whose first run starts with `message`. `sessionId` names the new session (default `branch-<uuid>`).
 *
 * @example
 * consoleBranchSchema.parse({ checkpointId: 'run-1:2', message: 'Try Porto instead.' });
 */
export const consoleBranchSchema = z.object({
  message: z.string().min(1).max(100_000),
  checkpointId: z.string().min(1).max(300).optional(),
  sessionId: sessionIdSchema.optional(),
});
