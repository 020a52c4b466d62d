import { CliConnectionError, CliRouteMissingError, CliServerError, HelixCliError, type CliReportedCode } from '../cli-errors.js';
import { safeText } from '../error-report.js';

/**
 * A request to an AgentServer route.
 *
 * @example
 * const request: ServerRequest = { method: 'POST', path: '/abort', body: { sessionId: 's1' }, command: 'abort' };
 */
export interface ServerRequest {
  method: 'GET' | 'POST';
  /** The route, with its query string (relative to the server URL, which may carry a base path). */
  path: string;
  body?: unknown;
  /** The CLI command, named in errors. */
  command: string;
}

const TIMEOUT_MS = 30_000;
const CODE_PATTERN = /^[A-Z_]{1,64}$/;

/**
 * The CLI's HTTP client of an AgentServer: `Authorization: Bearer <token>` on every request, JSON in and out, errors
 * mapped to typed CLI errors. Neither the token nor the URL's credentials appear in any message.
 *
 * @example
 * const client = new ServerClient('http://127.0.0.1:3000', process.env.HELIX_TOKEN);
 * const status = await client.request({ method: 'GET', path: '/status?sessionId=s1', command: 'sessions show' });
 */
export class ServerClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | undefined,
    private readonly fetcher: typeof fetch = fetch,
  ) {}

  /**
   * Send one request and return its JSON answer.
   *
   * @throws CliConnectionError `CLI_CONNECTION_FAILED` when the server cannot be reached or answers no JSON.
   * @throws CliRouteMissingError `CLI_SERVER_ROUTE_MISSING` when the server has no such route.
   * @throws CliServerError with the server's code (`UNAUTHENTICATED`, `SESSION_NOT_FOUND`, `NO_ACTIVE_RUN`, …).
   * @example
   * await client.request({ method: 'POST', path: '/interrupt', body: { sessionId: 's1' }, command: 'interrupt' });
   */
  async request(request: ServerRequest): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.fetcher(`${this.baseUrl}${request.path}`, {
        method: request.method,
        headers,
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new CliConnectionError(`Could not reach the AgentServer at ${this.origin()} (${causeCode(error)}).`, { cause: error });
    }
    const body = await response.json().catch(() => undefined);
    if (response.ok) return body;
    throw this.errorOf(request, response.status, body);
  }

  private errorOf(request: ServerRequest, status: number, body: unknown): Error {
    const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    const code = typeof error?.code === 'string' && CODE_PATTERN.test(error.code) ? error.code : undefined;
    if (status === 404 && (code === 'NOT_FOUND' || code === undefined)) return new CliRouteMissingError(request.command, request.path.split('?')[0] ?? request.path);
    if (status === 401) return new CliServerError(401, 'UNAUTHENTICATED', 'The AgentServer refused the credentials (401); check --token / HELIX_TOKEN.');
    const message = typeof error?.message === 'string' ? safeText(error.message) : `The AgentServer answered ${status}.`;
    const answered = new CliServerError(status, (code ?? 'CLI_SERVER_ERROR') as CliReportedCode, message);
    // A code this release does not know (another server version) is reported as the server's error.
    return HelixCliError.isInstance(answered) ? answered : new CliServerError(status, 'CLI_SERVER_ERROR', message);
  }

  private origin(): string {
    return new URL(this.baseUrl).origin;
  }
}

function causeCode(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer in ${TIMEOUT_MS / 1_000} s`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : error instanceof Error ? error.name : 'error';
}
