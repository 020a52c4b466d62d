import type { IncomingMessage, ServerResponse } from 'node:http';

/** A body the handler left unread is drained up to this many bytes to keep the connection alive (Go's net/http: 256 KiB). */
const DRAIN_MAX_BYTES = 1_048_576;
/** … and for at most this long; a slower client gets `connection: close` instead. */
const DRAIN_MAX_MS = 1_000;

/**
 * Anything with a web-standard `fetch(request)` handler, such as `AgentServer`.
 *
 * @example
 * const handler: FetchHandler = { fetch: (request) => server.fetch(request) };
 */
export interface FetchHandler {
  fetch(request: Request): Promise<Response>;
}

/**
 * A Node `http` request listener serving a fetch handler: requests become web `Request`s (body streamed,
 * `signal` aborted when the client goes away), responses are streamed back with back-pressure.
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(createHttpAdapter(server)).listen(3000, '127.0.0.1');
 */
export function createHttpAdapter(handler: FetchHandler): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    serveNodeRequest(handler, request, response).catch(() => failResponse(request, response));
  };
}

/** @internal Serve one Node request through `handler`; `parsedBody` replaces a body a framework already read. */
export async function serveNodeRequest(handler: FetchHandler, request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<void> {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  const body = parsedBody === undefined && hasBody(request) ? streamBody(request) : undefined;
  let webResponse: Response;
  try {
    webResponse = await handler.fetch(toWebRequest(request, controller.signal, parsedBody, body?.stream));
  } catch (error) {
    body?.release(); // the caller's error path (ours, or Express's final handler) owns the request now
    throw error;
  }
  const headers: Record<string, string | string[]> = {};
  webResponse.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = webResponse.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  body?.release();
  if (!(await settleUnreadBody(request))) headers.connection = 'close';
  response.writeHead(webResponse.status, headers);
  if (webResponse.body === null) {
    response.end();
    return;
  }
  const reader = webResponse.body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  controller.signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || controller.signal.aborted) break;
      if (!response.write(value)) await new Promise((resolve) => (response.once('drain', resolve), response.once('close', resolve)));
    }
  } finally {
    controller.signal.removeEventListener('abort', cancel);
    response.end();
  }
}

function hasBody(request: IncomingMessage): boolean {
  return request.method !== 'GET' && request.method !== 'HEAD' && request.method !== undefined;
}

function toWebRequest(request: IncomingMessage, signal: AbortSignal, parsedBody: unknown, body: ReadableStream<Uint8Array> | undefined): Request {
  const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = request.method ?? 'GET';
  if (!hasBody(request)) return new Request(url, { method, headers, signal });
  if (parsedBody !== undefined) {
    const text = typeof parsedBody === 'string' || Buffer.isBuffer(parsedBody) ? parsedBody.toString() : JSON.stringify(parsedBody);
    headers.delete('content-length');
    return new Request(url, { method, headers, signal, body: text });
  }
  // `duplex: 'half'` is required by Node's fetch for a streamed request body.
  const init: RequestInit & { duplex: 'half' } = { method, headers, signal, body: body ?? null, duplex: 'half' };
  return new Request(url, init);
}

/**
 * The request body as a web stream, with back-pressure. Unlike `Readable.toWeb`, cancelling it (as Hono's body
 * limit does) does not destroy the request, which would destroy the socket before the answer is written: it
 * only lets go of the request, and `settleUnreadBody` deals with what is left.
 */
function streamBody(request: IncomingMessage): { stream: ReadableStream<Uint8Array>; release: () => void } {
  let release = (): void => undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const onData = (chunk: Buffer): void => {
          controller.enqueue(new Uint8Array(chunk));
          if ((controller.desiredSize ?? 0) <= 0) request.pause();
        };
        const onEnd = (): void => (release(), controller.close());
        const onError = (error: Error): void => (release(), controller.error(error));
        const onClose = (): void => onError(new Error('The client closed the connection before the request body ended.'));
        release = () => {
          request.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
        };
        request.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
      },
      pull: () => void request.resume(),
      cancel: () => release(),
    },
    { highWaterMark: 65_536, size: (chunk) => chunk.byteLength },
  );
  return { stream, release: () => release() };
}

/**
 * Leave the connection usable when the answer comes before the request body was read (413 over the limit,
 * 401 from `authenticate`, a route that never reads it). Node only drops a body nobody started reading; this
 * one was streaming into the handler and stays paused, so the next request on a keep-alive connection is never
 * parsed: the client hangs until the keep-alive timeout resets it. Answering `connection: close` and closing at once is not enough while the client is still
 * sending: closing a socket with unread input sends a TCP reset, which can discard the answer on the client
 * before it is read. So a body of at most DRAIN_MAX_BYTES is drained (read and dropped) for at most
 * DRAIN_MAX_MS before the answer, and the connection stays alive. A bigger or slower body gets
 * `connection: close`, and we keep dropping what arrives until Node closes the socket after the answer,
 * which keeps the input buffer empty and a reset unlikely. Resolves false when the connection must close.
 */
async function settleUnreadBody(request: IncomingMessage): Promise<boolean> {
  if (request.readableEnded) return true;
  request.on('data', discard).resume();
  if (Number(request.headers['content-length']) > DRAIN_MAX_BYTES) return false;
  return new Promise((resolve) => {
    let received = 0;
    const settle = (drained: boolean): void => {
      clearTimeout(timer);
      request.off('data', count).off('end', ended).off('close', closed);
      resolve(drained);
    };
    const count = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > DRAIN_MAX_BYTES) settle(false);
    };
    const ended = (): void => settle(true);
    const closed = (): void => settle(false);
    const timer = setTimeout(() => settle(false), DRAIN_MAX_MS);
    request.on('data', count).once('end', ended).once('close', closed);
  });
}

function discard(): void {}

function failResponse(request: IncomingMessage, response: ServerResponse): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  // Too late to drain: a body still unread gets the connection closed (see settleUnreadBody).
  if (!request.readableEnded) request.on('data', discard).resume();
  response.writeHead(500, { 'content-type': 'application/json', ...(request.readableEnded ? {} : { connection: 'close' }) });
  response.end(JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'The server could not complete the request.' } }));
}
