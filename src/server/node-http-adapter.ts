import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

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
    serveNodeRequest(handler, request, response).catch(() => failResponse(response));
  };
}

/** @internal Serve one Node request through `handler`; `parsedBody` replaces a body a framework already read. */
export async function serveNodeRequest(handler: FetchHandler, request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<void> {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  const webResponse = await handler.fetch(toWebRequest(request, controller.signal, parsedBody));
  const headers: Record<string, string | string[]> = {};
  webResponse.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = webResponse.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
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

function toWebRequest(request: IncomingMessage, signal: AbortSignal, parsedBody: unknown): Request {
  const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = request.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers, signal });
  if (parsedBody !== undefined) {
    const text = typeof parsedBody === 'string' || Buffer.isBuffer(parsedBody) ? parsedBody.toString() : JSON.stringify(parsedBody);
    headers.delete('content-length');
    return new Request(url, { method, headers, signal, body: text });
  }
  // `duplex: 'half'` is required by Node's fetch for a streamed request body.
  const init: RequestInit & { duplex: 'half' } = { method, headers, signal, body: Readable.toWeb(request) as ReadableStream<Uint8Array>, duplex: 'half' };
  return new Request(url, init);
}

function failResponse(response: ServerResponse): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(500, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'The server could not complete the request.' } }));
}
