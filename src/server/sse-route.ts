import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { StreamChunk } from '../types/stream.js';
import { parseQuery } from './http-errors.js';
import { AgentServerHttpError } from './server-errors.js';
import type { AgentServerEnvironment, ServerContext } from './server-context.js';
import { measuredStream } from '../telemetry/agent-spans.js';
import { sseQuerySchema } from './wire-schemas.js';

const KEEP_ALIVE_MS = 15_000;
/** Chunk types that end a run (when written by the root agent). */
const TERMINAL = new Set<StreamChunk['type']>(['output', 'error', 'run_interrupted']);

/**
 * @internal GET /sse?sessionId=…[&fromSequence=n]: the session stream's chunks as server-sent events, `id:`
 * = the chunk's sequence and `data:` = the chunk as JSON. Resumable: `Last-Event-ID` (what `EventSource`
 * sends on reconnect) or `fromSequence` skips every chunk up to that sequence; without either it starts at
 * the current run. Ends after the run's last chunk (or when the stream ends); a disconnect only stops reading.
 */
export function sseRoute(context: ServerContext) {
  return async (c: Context<AgentServerEnvironment>): Promise<Response> => {
    const query = parseQuery(c, sseQuerySchema);
    const state = await context.ownedSession(c.get('principal'), query.sessionId);
    const resumeAfter = lastEventId(c.req.header('last-event-id')) ?? query.fromSequence;
    const from = resumeAfter ?? (await context.options.stateStore.getCurrentRun(state.sessionId))?.startSequence ?? 0;
    return streamChunksAsSSE(c, context, { streamId: state.streamId ?? state.sessionId, from, endsAfter: (chunk) => endsRunOf(chunk, state.sessionId) });
  };
}

/**
 * @internal Whether `chunk` ends a run of the session `sessionId` (its own output, error or interrupt).
 *
 * @example
 * if (endsRunOf(chunk, sessionId)) break;
 */
export function endsRunOf(chunk: StreamChunk, sessionId: string): boolean {
  return chunk.agentId === sessionId && TERMINAL.has(chunk.type);
}

/**
 * @internal A stream's chunks after `from` as server-sent events (`id:` = sequence, `data:` = the chunk), with a
 * keep-alive comment every 15 s; ends after the chunk `endsAfter` accepts, or with the stream. A disconnect only stops
 * reading. The caller has checked that the principal may read the stream.
 *
 * @example
 * return streamChunksAsSSE(c, context, { streamId, from: 0, endsAfter: (chunk) => endsRunOf(chunk, sessionId) });
 */
export async function streamChunksAsSSE(
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
