import type { z } from 'zod';
import { ConfigurationError, RemoteAgentTransportError } from '../errors/index.js';
import { parseTraceparent } from '../telemetry/ids.js';
import type {
  RemoteAgentStartOptions,
  RemoteAgentStartRequest,
  RemoteAgentStartResult,
  RemoteAgentStatus,
  RemoteAgentStreamOptions,
  RemoteAgentTransport,
} from '../types/remote.js';
import type { StreamChunk } from '../types/stream.js';
import { errorResponseSchema, startResponseSchema, statusResponseSchema } from './remote-wire.js';
import { readSseEvents } from './sse-events.js';

/**
 * Request headers of a transport: fixed, or computed per request (e.g. a short-lived bearer token).
 *
 * @example
 * const headers: RemoteHeaders = async () => ({ authorization: `Bearer ${await tokens.get()}` });
 */
export type RemoteHeaders = Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

/**
 * Options of `HttpRemoteAgentTransport`.
 *
 * @example
 * const options: HttpRemoteAgentTransportOptions = { url: 'https://agents.internal/api', headers: { authorization: 'Bearer …' } };
 */
export interface HttpRemoteAgentTransportOptions {
  /** Base URL of the remote `AgentServer` (its `basePath` included). */
  url: string;
  /** Sent with every request, e.g. the bearer token the server's `authenticate` checks. */
  headers?: RemoteHeaders;
  /** Time limit of one non-streaming request (start, status, interrupt, abort) in ms. Default 30 000. */
  requestTimeoutMs?: number;
  /** The `fetch` to use. Default: the global one. */
  fetch?: typeof fetch;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * A `RemoteAgentTransport` over HTTP + SSE against an `AgentServer` in another process: `start` → POST /start
 * (idempotent per session id), `stream` → GET /sse from a sequence, `getStatus` → GET /status, `interrupt` /
 * `abort` → POST /interrupt, /abort (a session with nothing running is not an error). Failures are
 * `RemoteAgentTransportError`s naming the operation and the HTTP status only.
 *
 * @throws ConfigurationError `INVALID_TOOL_CONFIG` when `url` is not an http(s) URL.
 * @example
 * const transport = new HttpRemoteAgentTransport({ url: 'http://127.0.0.1:4000', headers: () => ({ authorization: `Bearer ${token()}` }) });
 * const research = createRemoteSubAgentTool({ agentType: 'researcher', inputSchema: z.object({ topic: z.string() }), transport });
 */
export class HttpRemoteAgentTransport implements RemoteAgentTransport {
  private readonly baseUrl: string;
  private readonly requestTimeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: HttpRemoteAgentTransportOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.url);
    } catch {
      throw new ConfigurationError('INVALID_TOOL_CONFIG', 'HttpRemoteAgentTransport: url must be an absolute http(s) URL.');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigurationError('INVALID_TOOL_CONFIG', 'HttpRemoteAgentTransport: url must be an absolute http(s) URL.');
    }
    this.baseUrl = parsed.href.replace(/\/+$/, '');
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.fetchImpl = options.fetch ?? fetch;
  }

  /**
   * POST /start. An existing session answers its current run (`created: false`). `options.traceparent` (a valid W3C
   * one; anything else is left out) is sent as the `traceparent` header: the server's new run joins that trace.
   *
   * @example
   * await transport.start({ agentType: 'researcher', sessionId: 's1-remote-c1', input: 'tides' }, { traceparent });
   */
  async start(request: RemoteAgentStartRequest, options: RemoteAgentStartOptions = {}): Promise<RemoteAgentStartResult> {
    const { traceparent } = options;
    const traced: Record<string, string> = traceparent === undefined || parseTraceparent(traceparent) === undefined ? {} : { traceparent };
    const response = await this.request('start', '/start', { method: 'POST', body: request, headers: traced });
    return this.parse('start', response, startResponseSchema);
  }

  /** GET /status. */
  async getStatus(sessionId: string): Promise<RemoteAgentStatus> {
    const response = await this.request('status', `/status?sessionId=${encodeURIComponent(sessionId)}`, { method: 'GET' });
    return this.parse('status', response, statusResponseSchema);
  }

  /** POST /interrupt (a session with no running run answers 409, which is not an error here). */
  async interrupt(sessionId: string, reason?: string): Promise<void> {
    await this.control('interrupt', sessionId, reason);
  }

  /** POST /abort (a session with no running run answers 409, which is not an error here). */
  async abort(sessionId: string, reason?: string): Promise<void> {
    await this.control('abort', sessionId, reason);
  }

  /** GET /sse from `fromSequence`: each event's data is a chunk, its id the chunk's sequence. */
  async *stream(sessionId: string, options: RemoteAgentStreamOptions): AsyncGenerator<StreamChunk> {
    const path = `/sse?sessionId=${encodeURIComponent(sessionId)}&fromSequence=${options.fromSequence}`;
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method: 'GET',
        headers: { ...(await this.headers()), accept: 'text/event-stream' },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      if (options.signal?.aborted === true) return;
      throw new RemoteAgentTransportError('stream', { retryable: true, cause: error });
    }
    if (!response.ok || response.body === null) throw await failure('stream', response);
    try {
      for await (const event of readSseEvents(response.body)) {
        const sequence = Number(event.id);
        let chunk: StreamChunk;
        try {
          chunk = JSON.parse(event.data) as StreamChunk;
        } catch (error) {
          throw new RemoteAgentTransportError('stream', { retryable: true, cause: error });
        }
        if (!Number.isSafeInteger(sequence) || typeof chunk !== 'object' || chunk === null || typeof chunk.type !== 'string') {
          throw new RemoteAgentTransportError('stream', { retryable: true });
        }
        yield { ...chunk, sequence };
      }
    } catch (error) {
      if (options.signal?.aborted === true) return;
      if (RemoteAgentTransportError.isInstance(error)) throw error;
      throw new RemoteAgentTransportError('stream', { retryable: true, cause: error });
    }
  }

  private async control(operation: 'interrupt' | 'abort', sessionId: string, reason?: string): Promise<void> {
    const response = await this.request(operation, `/${operation}`, { method: 'POST', body: { sessionId, ...(reason === undefined ? {} : { reason: reason.slice(0, 500) }) } }, [409]);
    await response.body?.cancel().catch(() => undefined);
  }

  private async request(
    operation: string,
    path: string,
    init: { method: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string> },
    accepted: readonly number[] = [],
  ): Promise<Response> {
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method: init.method,
        headers: { ...overridden(await this.headers(), init.headers), ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        signal: AbortSignal.timeout(this.requestTimeoutMs),
      });
    } catch (error) {
      throw new RemoteAgentTransportError(operation, { retryable: true, cause: error });
    }
    if (!response.ok && !accepted.includes(response.status)) throw await failure(operation, response);
    return response;
  }

  private async parse<T extends z.ZodType>(operation: string, response: Response, schema: T): Promise<z.output<T>> {
    const body: unknown = await response.json().catch(() => undefined);
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new RemoteAgentTransportError(operation, { status: response.status, retryable: false });
    return parsed.data;
  }

  private async headers(): Promise<Record<string, string>> {
    const { headers } = this.options;
    if (headers === undefined) return {};
    return typeof headers === 'function' ? await headers() : headers;
  }
}

/** `base` with `extra` on top, whatever the case of the names `extra` sets (a header is never sent twice). */
function overridden(base: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  const names = new Set(Object.keys(extra).map((name) => name.toLowerCase()));
  return { ...Object.fromEntries(Object.entries(base).filter(([name]) => !names.has(name.toLowerCase()))), ...extra };
}

async function failure(operation: string, response: Response): Promise<RemoteAgentTransportError> {
  const body: unknown = await response.json().catch(() => undefined);
  const remoteCode = errorResponseSchema.safeParse(body).data?.error.code;
  const status = response.status;
  const retryable = status === 408 || status === 429 || status >= 500;
  return new RemoteAgentTransportError(operation, { status, retryable, ...(remoteCode === undefined ? {} : { remoteCode }) });
}
