import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { SessionState } from '../types/session.js';
import type { StreamChunk } from '../types/stream.js';
import { sessionStreamId, streamRootOf } from './console/console-state.js';
import { parseQuery } from './http-errors.js';
import { AgentServerHttpError } from './server-errors.js';
import type { AgentServerEnvironment, ServerContext } from './server-context.js';
import { measuredStream } from '../telemetry/agent-spans.js';
import { sseQuerySchema } from './wire-schemas.js';
import { endsRun } from '../stream/run-end.js';

const KEEP_ALIVE_MS = 15_000;

/**
 * @internal GET /sse?sessionId=…[&fromSequence=n]: the session stream's chunks as server-sent events, `id:`
 * = the chunk's sequence and `data:` = the chunk as JSON. Resumable: `Last-Event-ID` (what `EventSource`
 * sends on reconnect) or `fromSequence` skips every chunk up to that sequence; without either it starts at
 * the current run. Ends after the run's last chunk (or when the stream ends); a disconnect only stops reading.
 */
export function sseRoute(context: ServerContext) {
  return async (c: Context<AgentServerEnvironment>): Promise<Response> => {
    const query = parseQuery(c, sseQuerySchema);
    const access = await context.ownedTreeSession(c.get('principal'), query.sessionId);
    return sessionSSE(c, context, access, lastEventId(c.req.header('last-event-id')) ?? query.fromSequence);
  };
}

/**
 * @internal A session's own stream as server-sent events (`GET /sse` and the console's session stream): its stream
 * (its own, or its root's for a sub-agent) from `resumeAfter`, else from its current run's start, to the end of its
 * run (its own output, error or interrupt chunk, or the parent's `subagent_end` for a sub-agent whose run ends without
 * one). The caller has checked that the principal owns `access`.
 *
 * @example
 * return sessionSSE(c, context, await context.ownedTreeSession(principal, sessionId), lastEventId(header));
 */
export async function sessionSSE(
  c: Context<AgentServerEnvironment>,
  context: ServerContext,
  access: { state: SessionState; root: SessionState },
  resumeAfter: number | undefined,
): Promise<Response> {
  const { state } = access;
  const from = resumeAfter ?? (await context.options.stateStore.getCurrentRun(state.sessionId))?.startSequence ?? 0;
  const endsAfter = (chunk: StreamChunk): boolean =>
    endsRun(chunk, state.sessionId) || (chunk.type === 'subagent_end' && chunk.subSessionId === state.sessionId);
  return streamChunksAsSSE(c, context, { streamId: sessionStreamId(state, streamRootOf(access.root)), from, endsAfter });
}

/**
 * A stream's chunks after `from` as server-sent events (`id:` = sequence, `data:` = the chunk), with a
 * keep-alive comment every 15 s; ends after the chunk `endsAfter` accepts, or with the stream. A disconnect only stops
 * reading. The caller has checked that the principal may read the stream.
 *
 * @example
 * return streamChunksAsSSE(c, context, { streamId, from: 0, endsAfter: (chunk) => endsRunOf(chunk, sessionId) });
 */
async function streamChunksAsSSE(
  c: Context<AgentServerEnvironment>,
  context: ServerContext,
  source: { streamId: string; from: number; endsAfter: (chunk: StreamChunk) => boolean },
): Promise<Response> {
  const reader = await context.options.streamManager.createReader(source.streamId, source.from);
  const close = (): void => void reader.close().catch(() => undefined);
  c.req.raw.signal.addEventListener('abort', close, { once: true });
  return streamSSE(c, async (stream) => {
    stream.onAbort(close);
    // A comment line every 15 s keeps an idle connection (a long tool call) open through proxies.
    const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n').catch(close), KEEP_ALIVE_MS);
    try {
      for await (const chunk of measuredStream(reader)) {
        await stream.writeSSE({ id: String(chunk.sequence), data: JSON.stringify(chunk) });
        if (source.endsAfter(chunk)) break;
      }
    } finally {
      clearInterval(keepAlive);
      close();
    }
  });
}

/**
 * @internal The `Last-Event-ID` header as a chunk sequence (undefined when absent or blank).
 *
 * @throws AgentServerHttpError 400 `INVALID_REQUEST` for anything but a non-negative integer.
 * @example
 * const from = lastEventId(c.req.header('last-event-id')) ?? 0;
 */
export function lastEventId(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const value = Number(header);
  if (!Number.isSafeInteger(value) || value < 0) throw new AgentServerHttpError(400, 'INVALID_REQUEST', 'Last-Event-ID must be a chunk sequence.');
  return value;
}
