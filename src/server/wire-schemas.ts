import { z } from 'zod';

/**
 * The JSON bodies and queries of the agent server's routes (zod 4). Remote clients (an HTTP transport)
 * can import these to build requests; the server validates every body with them before touching anything.
 *
 * Answers (JSON unless noted; errors are `{ error: { code, message, issues? } }`):
 * - POST /start → 201 `{ sessionId, runId, streamId, startSequence, created: true }` (200 with
 *   `created: false` and the current run when the principal's session already exists); POST /resume → 200
 *   `{ sessionId, runId, streamId, startSequence }`.
 * - GET /sse → `text/event-stream`: `id: <sequence>` and `data: <StreamChunk JSON>` per chunk, from after
 *   `Last-Event-ID` / `fromSequence` (default: the current run's start); ends after the root agent's
 *   `output` / `error` / `run_interrupted` chunk or when the stream ends; `: keep-alive` comments every 15 s.
 * - GET /status → `{ sessionId, agentType, status, stepCount, run: { runId, status, turn, stepCount,
 *   startSequence, completionReason? } | null, output?, error?, failureReason?, awaitingClientTool,
 *   awaitingApproval (both for the whole tree), pendingToolCalls: [{ toolCallId, toolName, kind, input, approvalId?,
 *   ownerSessionId, agentType, createdAt, deadlineAt? }], pendingToolCallsTruncated, rootSessionId, canResume,
 *   stream: { streamId, status, lastSequence } }`.
 * - POST /interrupt → 202 `{ sessionId, status: 'interrupt_requested' }`; POST /abort → 200
 *   `{ sessionId, status: 'aborted' }`; both 409 `NO_ACTIVE_RUN` when nothing runs.
 * - POST /submit-tool-result → 200 `{ status: 'accepted' | 'already_completed' | 'unknown_tool_call',
 *   sessionId, toolCallId, run? }` (`run` when the submission resumed a parked run or woke a waiting one).
 */

/**
 * Session ids: 1–256 characters of `[A-Za-z0-9_.:-]`.
 *
 * @example
 * sessionIdSchema.parse('trip-1');
 */
export const sessionIdSchema = z.string().min(1).max(256).regex(/^[A-Za-z0-9_.:-]+$/);
const reasonSchema = z.string().max(500);

/**
 * Body of POST /start: a fresh session (`sessionId` optional; an existing one of the same principal answers its run).
 *
 * @example
 * startRequestSchema.parse({ agentType: 'assistant', sessionId: 's1', input: 'Hello' });
 */
export const startRequestSchema = z.object({
  agentType: z.string().min(1).max(200),
  sessionId: sessionIdSchema.optional(),
  input: z.union([z.string().min(1), z.object({ message: z.string().min(1), state: z.record(z.string(), z.unknown()).optional() })]),
  tags: z.array(z.string().max(200)).max(50).optional(),
  metadata: z.record(z.string().max(200), z.string().max(2_000)).optional(),
});

/**
 * Body of POST /resume (the executor's `ResumeOptions`).
 *
 * @example
 * resumeRequestSchema.parse({ sessionId: 's1', mode: 'with_message', message: 'Use metric units.' });
 */
export const resumeRequestSchema = z.object({
  sessionId: sessionIdSchema,
  mode: z.enum(['continue', 'with_message', 'with_confirmation', 'from_checkpoint']).optional(),
  message: z.string().min(1).optional(),
  checkpointId: z.string().min(1).max(300).optional(),
});

/**
 * Body of POST /interrupt and POST /abort.
 *
 * @example
 * controlRequestSchema.parse({ sessionId: 's1', reason: 'user pressed stop' });
 */
export const controlRequestSchema = z.object({ sessionId: sessionIdSchema, reason: reasonSchema.optional() });

/**
 * Body of POST /retry.
 *
 * @example
 * retryRequestSchema.parse({ sessionId: 's1' });
 */
export const retryRequestSchema = z.object({ sessionId: sessionIdSchema });

/**
 * Body of POST /chat/{sessionId}/interrupt and /abort (optional).
 *
 * @example
 * chatControlRequestSchema.parse({ reason: 'stop' });
 */
export const chatControlRequestSchema = z.object({ reason: reasonSchema.optional() });

const toolCallIdSchema = z.string().min(1).max(300);
const clientToolResultSchema = z.object({
  kind: z.literal('client-tool-result'),
  toolCallId: toolCallIdSchema,
  result: z.unknown().optional(),
  error: z.string().max(2_000).optional(),
});
const approvalResponseSchema = z.object({
  kind: z.literal('approval-response'),
  toolCallId: toolCallIdSchema,
  approvalId: z.string().min(1).max(300),
  approved: z.boolean(),
  reason: reasonSchema.optional(),
});

/**
 * Body of POST /chat/{sessionId}/submit-tool-result: a client tool result or an approval decision.
 *
 * @example
 * chatSubmitRequestSchema.parse({ kind: 'approval-response', toolCallId: 'c1', approvalId: 'c1', approved: true });
 */
export const chatSubmitRequestSchema = z.discriminatedUnion('kind', [clientToolResultSchema, approvalResponseSchema]);

/**
 * Body of POST /submit-tool-result (the executor's `SubmitToolResult`).
 *
 * @example
 * submitRequestSchema.parse({ kind: 'client-tool-result', sessionId: 's1', toolCallId: 'c1', result: { city: 'Oslo' } });
 */
export const submitRequestSchema = z.discriminatedUnion('kind', [
  clientToolResultSchema.extend({ sessionId: sessionIdSchema }),
  approvalResponseSchema.extend({ sessionId: sessionIdSchema }),
]);

/**
 * Query of GET /sse (`Last-Event-ID` takes precedence over `fromSequence`).
 *
 * @example
 * sseQuerySchema.parse({ sessionId: 's1', fromSequence: '42' }); // { sessionId: 's1', fromSequence: 42 }
 */
export const sseQuerySchema = z.object({ sessionId: sessionIdSchema, fromSequence: z.coerce.number().int().min(0).optional() });

/**
 * Query of GET /status.
 *
 * @example
 * statusQuerySchema.parse({ sessionId: 's1' });
 */
export const statusQuerySchema = z.object({ sessionId: sessionIdSchema });

const uiPartSchema = z.looseObject({ type: z.string().min(1).max(200) });
/**
 * One UI message of a chat request (the AI SDK `UIMessage` shape; parts are read leniently).
 *
 * @example
 * chatMessageSchema.parse({ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] });
 */
export const chatMessageSchema = z.looseObject({
  id: z.string().max(300),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(uiPartSchema).max(1_000),
});

/**
 * Body of POST /chat: what the AI SDK's `DefaultChatTransport` sends (`id` is the session id).
 *
 * @example
 * chatRequestSchema.parse({ id: 'chat-1', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] });
 */
export const chatRequestSchema = z.looseObject({
  id: sessionIdSchema,
  messages: z.array(chatMessageSchema).min(1).max(10_000),
  trigger: z.string().max(100).optional(),
  messageId: z.string().max(300).optional(),
});

/** @internal */
export type ChatMessage = z.infer<typeof chatMessageSchema>;
