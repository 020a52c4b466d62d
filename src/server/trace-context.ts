import { parseTraceparent } from '../telemetry/index.js';

/**
 * @internal The `traceparent` option of a run a request starts: the request's W3C `traceparent` header when it is a
 * valid one (the run's spans then join the caller's trace). A malformed or absent header is ignored: the run gets its
 * session's own trace, the request is not refused, and the header's value is never logged.
 */
export function incomingTrace(request: Request): { traceparent?: string } {
  const header = request.headers.get('traceparent');
  return header !== null && parseTraceparent(header) !== undefined ? { traceparent: header } : {};
}
