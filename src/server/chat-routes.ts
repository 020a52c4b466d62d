import { isParkedRunStatus } from '../index.js';
import { createUIMessageStream, createUIMessageStreamResponse, type UIMessage, type UIMessageChunk } from 'ai';
import { Hono, type Context } from 'hono';
import type { RunRecord, SessionState } from '../types/session.js';
import { chatHistory } from './chat-history.js';
import { answersOf, knownToolCallsOf, userText } from './chat-request.js';
import { parseBody } from './http-errors.js';
import { AgentServerHttpError, sessionNotFound } from './server-errors.js';
import { owns, type AgentServerEnvironment, type ServerContext } from './server-context.js';
import { abortRun, describeRun, interruptRun, submitAndContinue } from './session-operations.js';
import { uiRunStream } from './ui-run-stream.js';
import { incomingTrace } from './trace-context.js';
import { chatControlRequestSchema, chatRequestSchema, chatSubmitRequestSchema, sessionIdSchema, type ChatMessage } from './wire-schemas.js';
import { InternalError } from '../errors/index.js';

/**
 * @internal The AI SDK chat routes (`useChat` + `DefaultChatTransport`): POST /chat, GET /chat/{id}/stream,
 * GET /chat/{id}/messages (the history as UI messages), POST /chat/{id}/submit-tool-result, /interrupt and /abort. The chat id is the session id.
 */
export function chatRoutes(context: ServerContext, chatAgentName: string): Hono<AgentServerEnvironment> {
  const app = new Hono<AgentServerEnvironment>();
  const { executor, stateStore, streamManager } = context.options;
  const agent = context.agents.get(chatAgentName);
  if (agent === undefined) throw new InternalError('The chat agent is missing from the server context, which registers it; report this with the server options.');

  /** A user message starts a run (a new session, or a new turn); an assistant message answers its tools. */
  app.post('/chat', async (c) => {
    const body = await parseBody(c, chatRequestSchema);
    const principal = c.get('principal');
    const sessionId = body.id;
    const last = body.messages.at(-1) as ChatMessage;
    const existing = await stateStore.loadState(sessionId);
    if (existing !== null && !owns(principal, existing)) throw sessionNotFound();
    if (last.role === 'user') {
      const text = userText(last);
      if (text.length === 0) throw new AgentServerHttpError(400, 'INVALID_REQUEST', 'The last message has no text.');
      // A session still running is the executor's to decide: it waits for a run that is finishing (its stream
      // ended, its status not yet written), attaches a repeat of the running turn's message, refuses another.
      // A message after a stop continues the interrupted conversation with it.
      const handle =
        existing?.status === 'interrupted'
          ? await executor.resume(agent, sessionId, { mode: 'with_message', message: text })
          : await executor.execute(agent, text, { sessionId, ...(principal === null ? {} : { userId: principal.id }), ...incomingTrace(c.req.raw) });
      await context.ownedSession(principal, sessionId); // a creation race lost to another principal
      const run = await describeRun(context, handle);
      const input = { sessionId, streamId: run.streamId, fromSequence: run.startSequence, messageId: run.runId, signal: c.req.raw.signal };
      return respond(uiRunStream(context, input));
    }
    if (last.role !== 'assistant' || existing === null) throw new AgentServerHttpError(400, 'INVALID_REQUEST', 'The last message must be a user message or answer the pending tool calls.');
    const submissions = answersOf(last, existing);
    if (submissions.length === 0) throw new AgentServerHttpError(409, 'NO_ACTIVE_RUN', 'The last message answers no pending tool call of this session.');
    const streamId = existing.streamId ?? sessionId;
    const fromSequence = continueAfter(last, (await streamManager.getInfo(streamId))?.lastSequence ?? 0);
    const { handle } = await submitAndContinue(context, existing, submissions);
    if (handle === null) return respond(waitingStream());
    const originalMessages = body.messages as unknown as UIMessage[];
    const knownToolCalls = knownToolCallsOf(last);
    return respond(uiRunStream(context, { sessionId, streamId, fromSequence, knownToolCalls, originalMessages, signal: c.req.raw.signal }));
  });

  /** `useChat({ resume: true })`: the active assistant message replayed from its start, or 204. */
  app.get('/chat/:sessionId/stream', async (c) => {
    const state = await owned(c);
    const run = await stateStore.getCurrentRun(state.sessionId);
    if (run?.status !== 'running') return c.body(null, 204);
    const first = await firstRunOfMessage(run);
    const streamId = state.streamId ?? state.sessionId;
    const input = { sessionId: state.sessionId, streamId, fromSequence: first.startSequence, messageId: first.runId, signal: c.req.raw.signal };
    return respond(uiRunStream(context, input));
  });

  /** The session's messages as `UIMessage`s (`useChat`'s initial messages after a reload; see `chatHistory`). */
  app.get('/chat/:sessionId/messages', async (c) => c.json(await chatHistory(context, await owned(c)), 200));

  app.post('/chat/:sessionId/submit-tool-result', async (c) => {
    const state = await owned(c);
    const body = await parseBody(c, chatSubmitRequestSchema);
    const { responses, handle } = await submitAndContinue(context, state, [{ ...body, sessionId: state.sessionId }]);
    return c.json({ ...responses[0], ...(handle === null ? {} : { run: await describeRun(context, handle) }) }, 200);
  });

  app.post('/chat/:sessionId/interrupt', async (c) => {
    const state = await owned(c);
    const body = await parseBody(c, chatControlRequestSchema);
    await interruptRun(context, state, body.reason);
    return c.json({ sessionId: state.sessionId, status: 'interrupt_requested' }, 202);
  });

  app.post('/chat/:sessionId/abort', async (c) => {
    const state = await owned(c);
    const body = await parseBody(c, chatControlRequestSchema);
    await abortRun(context, state, body.reason);
    return c.json({ sessionId: state.sessionId, status: 'aborted' }, 200);
  });

  async function owned(c: Context<AgentServerEnvironment>): Promise<SessionState> {
    const sessionId = sessionIdSchema.safeParse(c.req.param('sessionId'));
    if (!sessionId.success) throw sessionNotFound();
    return context.ownedSession(c.get('principal'), sessionId.data);
  }

  /** A run resumed after parking continues the assistant message its parked run began. */
  async function firstRunOfMessage(run: RunRecord): Promise<RunRecord> {
    let first = run;
    for (let hops = 0; first.previousRunId !== undefined && hops < 100; hops += 1) {
      const previous = await stateStore.getRun(first.sessionId, first.previousRunId);
      if (previous === null || !isParkedRunStatus(previous.status)) break;
      first = previous;
    }
    return first;
  }

  return app;
}

/**
 * Where a continuation of the client's assistant message starts: right after the last sequence it shows
 * (`metadata.lastSequence`, written by the stream that produced it), else the stream's current end.
 */
function continueAfter(message: ChatMessage, streamEnd: number): number {
  const shown = (message.metadata as { lastSequence?: unknown } | undefined)?.lastSequence;
  return typeof shown === 'number' && Number.isSafeInteger(shown) && shown >= 0 && shown <= streamEnd ? shown : streamEnd;
}

/** SSE comments every 15 s keep an idle connection (a long tool call) open through proxies. */
function respond(stream: ReadableStream<UIMessageChunk>): Response {
  return createUIMessageStreamResponse({ stream, keepAliveMs: 15_000 });
}

/** Calls are still open after the submissions: nothing runs yet. */
function waitingStream(): ReadableStream<UIMessageChunk> {
  return createUIMessageStream({
    execute: ({ writer }) => {
      writer.write({ type: 'start' });
      writer.write({ type: 'finish', finishReason: 'tool-calls' });
    },
  });
}
