import { z } from 'zod';

/**
 * The JSON bodies and queries of the agent server's routes (zod 4). Remote clients (an HTTP transport)
 * can import these to build requests; the server validates every body with them before touching anything.
 */

/** Session ids: 1–256 characters of `[A-Za-z0-9_.:-]`. */
export const sessionIdSchema = z.string().min(1).max(256).regex(/^[A-Za-z0-9_.:-]+$/);
const reasonSchema = z.string().max(500);

/** POST /start */
export const startRequestSchema = z.object({
  agentType: z.string().min(1).max(200),
  sessionId: sessionIdSchema.optional(),
  input: z.union([z.string().min(1), z.object({ message: z.string().min(1), state: z.record(z.string(), z.unknown()).optional() })]),
  tags: z.array(z.string().max(200)).max(50).optional(),
  metadata: z.record(z.string().max(200), z.string().max(2_000)).optional(),
});

/** POST /resume */
export const resumeRequestSchema = z.object({
  sessionId: sessionIdSchema,
  mode: z.enum(['continue', 'with_message', 'with_confirmation', 'from_checkpoint']).optional(),
  message: z.string().min(1).optional(),
  checkpointId: z.string().min(1).max(300).optional(),
});

/** POST /interrupt, POST /abort */
export const controlRequestSchema = z.object({ sessionId: sessionIdSchema, reason: reasonSchema.optional() });

/** POST /chat/{sessionId}/interrupt, POST /chat/{sessionId}/abort (the body is optional) */
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

/** POST /chat/{sessionId}/submit-tool-result */
export const chatSubmitRequestSchema = z.discriminatedUnion('kind', [clientToolResultSchema, approvalResponseSchema]);

/** POST /submit-tool-result */
export const submitRequestSchema = z.discriminatedUnion('kind', [
  clientToolResultSchema.extend({ sessionId: sessionIdSchema }),
  approvalResponseSchema.extend({ sessionId: sessionIdSchema }),
]);

/** GET /sse */
export const sseQuerySchema = z.object({ sessionId: sessionIdSchema, fromSequence: z.coerce.number().int().min(0).optional() });

/** GET /status */
export const statusQuerySchema = z.object({ sessionId: sessionIdSchema });

const uiPartSchema = z.looseObject({ type: z.string().min(1).max(200) });
/** One UI message of a chat request (the AI SDK `UIMessage` shape; parts are read leniently). */
export const chatMessageSchema = z.looseObject({
  id: z.string().max(300),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(uiPartSchema).max(1_000),
});

/** POST /chat: what the AI SDK's `DefaultChatTransport` sends (`id` is the session id). */
export const chatRequestSchema = z.looseObject({
  id: sessionIdSchema,
  messages: z.array(chatMessageSchema).min(1).max(10_000),
  trigger: z.string().max(100).optional(),
  messageId: z.string().max(300).optional(),
});

/** @internal */
export type ChatMessage = z.infer<typeof chatMessageSchema>;
