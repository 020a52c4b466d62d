import type { ResumeOptions, SessionListPage, SessionListQuery, SubmitToolResult, SubmitToolResultResponse } from '../../index.js';
import { statusResponseSchema, type ConsoleSessionListResponse } from '../../server/index.js';
import { CliConnectionError, CliConsoleRequiredError, CliUnsupportedError, HelixCliError } from '../cli-errors.js';
import type { OperatorBackend, PendingCallView, PruneOutcome, RunStarted, SessionDetail } from './operator-backend.js';
import { ServerClient, type ServerRequest } from './server-client.js';

const DIRECT_REMEDY = 'the AgentServer has no route for it: use direct mode (DATABASE_URL, without --server).';

/**
 * Server mode (`--server URL --token T`): every command is a request to an AgentServer, as the token's principal (it
 * sees and acts on its own sessions only). The executor routes serve everything they can: `sessions show` and
 * `sessions pending <id>` (GET /status, which lists the open calls of the session's whole tree), `approve`, `deny`,
 * `submit` (POST /submit-tool-result), `interrupt`, `abort`, `resume` and `retry` (POST /interrupt, /abort, /resume,
 * /retry), so they work on a server without the console. Only listing needs the console API
 * (`AgentServerOptions.console`, under `--console-path`, default `/console`): `sessions list` and `sessions pending`
 * across sessions; on a server that does not serve it they answer `CLI_CONSOLE_REQUIRED`. `prune`, `--messages` and
 * list filters the console does not take (`--user`, `--anonymous`, `--include-children`) are refused here
 * (`CLI_UNSUPPORTED_IN_MODE`).
 *
 * @example
 * const backend = new ServerBackend('http://127.0.0.1:3000', process.env.HELIX_TOKEN, '/console');
 * await backend.resume('s1', { mode: 'continue' });
 */
export class ServerBackend implements OperatorBackend {
  readonly mode = 'server';
  private readonly client: ServerClient;

  constructor(
    url: string,
    token: string | undefined,
    private readonly consolePath = '/console',
    fetcher: typeof fetch = fetch,
  ) {
    this.client = new ServerClient(url, token, fetcher);
  }

  async listSessions(query: SessionListQuery): Promise<SessionListPage> {
    return this.listPage(query, 'sessions list');
  }

  /** A page of the console API's session list; `command` names the command in errors. */
  private async listPage(query: SessionListQuery, command: string): Promise<SessionListPage> {
    if (query.userId !== undefined || query.rootsOnly === false) {
      throw new CliUnsupportedError('sessions list --user, --anonymous or --include-children', 'server', "the server lists its principal's own top-level sessions only: use direct mode (DATABASE_URL).");
    }
    const parameters = new URLSearchParams();
    if (query.agentType !== undefined) parameters.set('agent', query.agentType);
    if (query.status !== undefined) parameters.set('status', query.status.join(','));
    if (query.awaitingHuman !== undefined) parameters.set('awaitingHuman', String(query.awaitingHuman));
    if (query.updatedSince !== undefined) parameters.set('updatedSince', String(Math.max(0, Math.floor(query.updatedSince))));
    if (query.limit !== undefined) parameters.set('limit', String(query.limit));
    if (query.cursor !== undefined) parameters.set('cursor', query.cursor);
    const path = `${this.consolePath}/api/sessions?${parameters.toString()}`;
    const page = (await this.console({ method: 'GET', path, command })) as Partial<ConsoleSessionListResponse>;
    if (!Array.isArray(page.sessions) || typeof page.total !== 'number') throw new CliConnectionError('The AgentServer answered the session list with an unexpected body.');
    return { sessions: page.sessions, total: page.total, ...(typeof page.nextCursor === 'string' ? { nextCursor: page.nextCursor } : {}) };
  }

  async showSession(sessionId: string, options: { messages: number }): Promise<SessionDetail> {
    if (options.messages > 0) throw new CliUnsupportedError('sessions show --messages', 'server', 'GET /status carries no messages: use direct mode (DATABASE_URL, without --server).');
    const body = await this.client.request({ method: 'GET', path: `/status?sessionId=${encodeURIComponent(sessionId)}`, command: 'sessions show' });
    const parsed = statusResponseSchema.safeParse(body);
    if (!parsed.success) throw new CliConnectionError('The AgentServer answered GET /status with an unexpected body.');
    const status = parsed.data;
    const run = status.run;
    const pendingCalls = pendingOf(sessionId, body);
    return {
      session: {
        sessionId: status.sessionId,
        agentType: status.agentType,
        status: status.status,
        stepCount: typeof status.stepCount === 'number' ? status.stepCount : 0,
        awaitingHuman: status.awaitingApproval || status.awaitingClientTool,
        ...(status.failureReason === undefined ? {} : { failureReason: status.failureReason }),
        ...(status.error === undefined ? {} : { error: status.error }),
        ...(status.output === undefined ? {} : { output: status.output }),
      },
      currentRun:
        run === null
          ? null
          : {
              runId: run.runId,
              status: run.status,
              ...(typeof run.turn === 'number' ? { turn: run.turn } : {}),
              ...(typeof run.stepCount === 'number' ? { stepCount: run.stepCount } : {}),
              ...(typeof run.completionReason === 'string' ? { completionReason: run.completionReason } : {}),
            },
      pendingCalls,
    };
  }

  async pendingCalls(sessionId: string | undefined, limit: number): Promise<PendingCallView[]> {
    if (sessionId !== undefined) return (await this.showSession(sessionId, { messages: 0 })).pendingCalls;
    const { sessions } = await this.listPage({ awaitingHuman: true, limit }, 'sessions pending (across sessions)');
    const details = await Promise.all(sessions.map((row) => this.showSession(row.sessionId, { messages: 0 })));
    return details.flatMap((detail) => detail.pendingCalls);
  }

  async submit(submission: SubmitToolResult): Promise<SubmitToolResultResponse> {
    const body = (await this.client.request({ method: 'POST', path: '/submit-tool-result', body: submission, command: 'submit' })) as SubmitToolResultResponse & { run?: { runId?: unknown } };
    const runId = typeof body.run?.runId === 'string' ? body.run.runId : body.runId;
    return {
      status: body.status,
      sessionId: body.sessionId,
      toolCallId: body.toolCallId,
      ...(body.next === undefined ? {} : { next: body.next }),
      ...(runId === undefined ? {} : { runId }),
    };
  }

  async interrupt(sessionId: string, reason?: string): Promise<void> {
    await this.client.request({ method: 'POST', path: '/interrupt', body: { sessionId, ...(reason === undefined ? {} : { reason }) }, command: 'interrupt' });
  }

  async abort(sessionId: string, reason?: string): Promise<void> {
    await this.client.request({ method: 'POST', path: '/abort', body: { sessionId, ...(reason === undefined ? {} : { reason }) }, command: 'abort' });
  }

  async resume(sessionId: string, options: ResumeOptions): Promise<RunStarted> {
    return runOf(await this.client.request({ method: 'POST', path: '/resume', body: { sessionId, ...options }, command: 'resume' }));
  }

  async retry(sessionId: string): Promise<RunStarted> {
    return runOf(await this.client.request({ method: 'POST', path: '/retry', body: { sessionId }, command: 'retry' }));
  }

  async pruneCandidates(): Promise<string[]> {
    throw new CliUnsupportedError('prune', 'server', DIRECT_REMEDY);
  }

  async pruneBatch(): Promise<PruneOutcome> {
    throw new CliUnsupportedError('prune', 'server', DIRECT_REMEDY);
  }

  async close(): Promise<void> {}

  /** A console API request; a server that does not serve the console API answers `CLI_CONSOLE_REQUIRED`. */
  private async console(request: ServerRequest): Promise<unknown> {
    try {
      return await this.client.request(request);
    } catch (error) {
      if (HelixCliError.isInstance(error) && error.code === 'CLI_SERVER_ROUTE_MISSING') throw new CliConsoleRequiredError(request.command, this.consolePath);
      throw error;
    }
  }
}

/**
 * The open calls of a `/status` answer, addressed to the tree's root (`rootSessionId`; an older server without it:
 * the session asked), each with the session whose run waits for it (`ownerSessionId`, when the server names it).
 */
function pendingOf(sessionId: string, body: unknown): PendingCallView[] {
  const { pendingToolCalls: calls, rootSessionId } = body as { pendingToolCalls?: unknown; rootSessionId?: unknown };
  if (!Array.isArray(calls)) return [];
  const answerTo = typeof rootSessionId === 'string' ? rootSessionId : sessionId;
  return calls.flatMap((call: Record<string, unknown>) => {
    if (typeof call?.toolCallId !== 'string' || typeof call.toolName !== 'string') return [];
    const kind = typeof call.kind === 'string' ? call.kind : 'client';
    return [
      {
        sessionId: answerTo,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        kind,
        input: call.input,
        ...(typeof call.approvalId === 'string' ? { approvalId: call.approvalId } : {}),
        ...(typeof call.ownerSessionId === 'string' ? { ownerSessionId: call.ownerSessionId } : {}),
        ...(typeof call.createdAt === 'number' ? { createdAt: call.createdAt } : {}),
        ...(typeof call.deadlineAt === 'number' ? { deadlineAt: call.deadlineAt } : {}),
      },
    ];
  });
}

function runOf(body: unknown): RunStarted {
  const run = body as Partial<RunStarted> | undefined;
  if (typeof run?.sessionId !== 'string' || typeof run.runId !== 'string') throw new CliConnectionError('The AgentServer answered with an unexpected body (no run).');
  return {
    sessionId: run.sessionId,
    runId: run.runId,
    ...(typeof run.streamId === 'string' ? { streamId: run.streamId } : {}),
    ...(typeof run.startSequence === 'number' ? { startSequence: run.startSequence } : {}),
  };
}
