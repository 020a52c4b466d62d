import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveNodeRequest, type FetchHandler } from './node-http-adapter.js';

/**
 * The request handler shape Express (4 and 5) calls; declared here so this package never requires
 * `express` (an optional peer). `body` is what a body parser such as `express.json()` left, if any.
 *
 * @example
 * const handler: ExpressRequestHandler = createExpressAdapter(server);
 */
export type ExpressRequestHandler = (request: IncomingMessage & { body?: unknown }, response: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Mount a fetch handler (e.g. `AgentServer`) in Express. Paths are relative to the mount point, so
 * `app.use('/agents', createExpressAdapter(server))` serves `/agents/start`, `/agents/chat`, … Mount it
 * before `express.json()`, or after it: a parsed body is re-serialized (express's own size limit then applies).
 *
 * @example
 * import express from 'express';
 * const app = express();
 * app.use('/agents', createExpressAdapter(server));
 * app.listen(3000);
 */
export function createExpressAdapter(handler: FetchHandler): ExpressRequestHandler {
  return (request, response, next) => {
    // A body parser that ran has consumed the stream: its result stands in for the body.
    const parsed = request.readableEnded ? (request.body ?? '') : undefined;
    serveNodeRequest(handler, request, response, parsed).catch((error: unknown) => next(error));
  };
}
