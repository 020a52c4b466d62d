import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/cli.js';
import type { CliIo } from '../../../src/cli/command-context.js';

interface Sent {
  method: string;
  url: string;
  authorization: string | null;
  body: unknown;
}

/** The CLI in this process against a scripted AgentServer: what it sent, printed and exited with. */
async function cli(args: string[], answer: (sent: Sent) => Response = () => Response.json({})): Promise<{ code: number; stdout: string; stderr: string; sent: Sent[] }> {
  const sent: Sent[] = [];
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    stderrIsTTY: false,
    env: { HELIX_SERVER_URL: 'http://agents.test/base', HELIX_TOKEN: 'TOKEN-1' },
    now: () => 0,
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
      const request = { method: init?.method ?? 'GET', url, authorization: headers.get('authorization'), body };
      sent.push(request);
      return answer(request);
    },
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr, sent };
}

const STATUS = {
  sessionId: 's1',
  agentType: 'assistant',
  status: 'active',
  stepCount: 1,
  run: { runId: 'r1', status: 'running', turn: 1 },
  awaitingClientTool: false,
  awaitingApproval: true,
  pendingToolCalls: [{ toolCallId: 'c1', toolName: 'pay', kind: 'approval', input: { amount: 5 }, approvalId: 'a1' }],
  canResume: true,
  stream: { streamId: 's1', status: 'active', lastSequence: 3 },
};

/** One body that satisfies every route's reader: a run, a submission answer, a console list page. */
const ANSWER = { sessionId: 's1', runId: 'r2', streamId: 's1', startSequence: 4, status: 'accepted', toolCallId: 'c2', sessions: [], total: 0, nextCursor: null };

describe('server mode requests', () => {
  it('sends each command to its route with the bearer token, under the URL base path', async () => {
    const cases: Array<[string[], string, string, unknown]> = [
      [['sessions', 'show', 's1'], 'GET', '/status?sessionId=s1', undefined],
      [['interrupt', 's1', '--reason', 'stop'], 'POST', '/interrupt', { sessionId: 's1', reason: 'stop' }],
      [['abort', 's1'], 'POST', '/abort', { sessionId: 's1' }],
      [['resume', 's1', '--message', 'Go on.'], 'POST', '/resume', { sessionId: 's1', mode: 'with_message', message: 'Go on.' }],
      [['retry', 's1'], 'POST', '/retry', { sessionId: 's1' }],
      [['--console-path', '/ops', 'retry', 's1'], 'POST', '/retry', { sessionId: 's1' }],
      [['--console-path', '/ops', 'sessions', 'list'], 'GET', '/ops/api/sessions?limit=50', undefined],
      [['sessions', 'list', '--status', 'active,failed', '--awaiting-human', '--agent', 'assistant', '--since', '1s', '--limit', '20'], 'GET', '/console/api/sessions?agent=assistant&status=active%2Cfailed&awaitingHuman=true&updatedSince=0&limit=20', undefined],
      [['submit', 's1', 'c2', '--result', '{"city":"Oslo"}'], 'POST', '/submit-tool-result', { kind: 'client-tool-result', sessionId: 's1', toolCallId: 'c2', result: { city: 'Oslo' } }],
    ];
    for (const [args, method, path, body] of cases) {
      const { sent } = await cli(args, () => Response.json(path.startsWith('/status') ? STATUS : ANSWER));
      expect(sent, args.join(' ')).toEqual([{ method, url: `http://agents.test/base${path}`, authorization: 'Bearer TOKEN-1', body }]);
    }
  });

  it('approve reads the open approvals, then answers each with its approvalId', async () => {
    const { code, stdout, sent } = await cli(['approve', 's1', '--reason', 'ok', '--json'], (request) =>
      request.url.includes('/status') ? Response.json(STATUS) : Response.json({ status: 'accepted', sessionId: 's1', toolCallId: 'c1', next: 'continues', run: { runId: 'r1' } }),
    );
    expect(code).toBe(0);
    expect(sent.map((request) => request.body)).toEqual([undefined, { kind: 'approval-response', sessionId: 's1', toolCallId: 'c1', approvalId: 'a1', approved: true, reason: 'ok' }]);
    expect(JSON.parse(stdout)).toEqual({ results: [{ sessionId: 's1', toolCallId: 'c1', status: 'accepted', next: 'continues', runId: 'r1' }] });
  });

  it("approve answers a sub-agent's approval that GET /status lists for the root, addressed to the root", async () => {
    const child = { toolCallId: 'c9', toolName: 'pay', kind: 'approval', input: { amount: 7 }, approvalId: 'c9', ownerSessionId: 's1-sub-c2', agentType: 'helper', createdAt: 5 };
    const status = { ...STATUS, rootSessionId: 's1', pendingToolCalls: [child] };
    const pending = await cli(['sessions', 'pending', 's1', '--json'], () => Response.json(status));
    expect(JSON.parse(pending.stdout)).toEqual({ calls: [{ sessionId: 's1', toolCallId: 'c9', toolName: 'pay', kind: 'approval', input: { amount: 7 }, approvalId: 'c9', ownerSessionId: 's1-sub-c2', createdAt: 5 }] });
    const { code, sent } = await cli(['approve', 's1', '--json'], (request) =>
      request.url.includes('/status') ? Response.json(status) : Response.json({ status: 'accepted', sessionId: 's1', toolCallId: 'c9', next: 'continues' }),
    );
    expect(code).toBe(0);
    expect(sent.map((request) => request.body)).toEqual([undefined, { kind: 'approval-response', sessionId: 's1', toolCallId: 'c9', approvalId: 'c9', approved: true }]);
  });

  it('lists through the console API and prints its page as the store page; retry (POST /retry) prints the started run', async () => {
    const row = { sessionId: 's1', agentType: 'assistant', status: 'active', stepCount: 1, createdAt: 0, updatedAt: 0, awaitingHuman: true };
    const list = await cli(['sessions', 'list', '--json'], () => Response.json({ sessions: [row], total: 1, nextCursor: null, counts: { awaitingHuman: 1, byStatus: {} } }));
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ sessions: [row], total: 1 });
    const retry = await cli(['retry', 's1', '--json'], () => Response.json(ANSWER));
    expect(JSON.parse(retry.stdout)).toEqual({ sessionId: 's1', runId: 'r2', streamId: 's1', startSequence: 4 });
  });

  it('refuses list filters the console does not take, prune and --messages, before any request', async () => {
    for (const args of [['sessions', 'list', '--user', 'bob'], ['sessions', 'list', '--anonymous'], ['sessions', 'list', '--include-children'], ['prune', '--older-than', '1d'], ['sessions', 'show', 's1', '--messages', '2']]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(4);
      expect(result.stderr).toContain('CLI_UNSUPPORTED_IN_MODE');
      expect(result.sent).toEqual([]);
    }
  });

  it.each([
    ['sessions list', ['sessions', 'list'], '/console'],
    ['sessions pending across sessions', ['--console-path', '/ops', 'sessions', 'pending'], '/ops'],
  ])('%s on a server without the console API is CLI_CONSOLE_REQUIRED (exit 4), saying to enable it', async (_label, args, consolePath) => {
    const result = await cli([...args, '--json'], () => Response.json({ error: { code: 'NOT_FOUND', message: 'No such route.' } }, { status: 404 }));
    expect(result.code).toBe(4);
    const { error } = JSON.parse(result.stderr) as { error: { code: string; message: string } };
    expect(error.code).toBe('CLI_CONSOLE_REQUIRED');
    expect(error.message).toContain(`needs the AgentServer's console API, which the server does not serve under ${consolePath}/api`);
    expect(error.message).toContain('`console` option');
    expect(result.stderr).not.toContain('TOKEN-1');
  });

  it('a console session the server does not know stays SESSION_NOT_FOUND, not CLI_CONSOLE_REQUIRED', async () => {
    const result = await cli(['sessions', 'list'], () => Response.json({ error: { code: 'SESSION_NOT_FOUND', message: 'No session.' } }, { status: 404 }));
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('SESSION_NOT_FOUND');
  });

  it.each([
    ['a 404 without a code: the route is missing', 404, { error: { code: 'NOT_FOUND', message: 'No such route.' } }, 4, 'CLI_SERVER_ROUTE_MISSING'],
    ["the server's 404 for a session", 404, { error: { code: 'SESSION_NOT_FOUND', message: 'No session with this id exists for this principal.' } }, 5, 'SESSION_NOT_FOUND'],
    ["the server's 409", 409, { error: { code: 'NOT_RESUMABLE', message: 'Nothing to resume.' } }, 6, 'NOT_RESUMABLE'],
    ['a 401', 401, { error: { code: 'UNAUTHENTICATED', message: 'Authentication is required.' } }, 7, 'UNAUTHENTICATED'],
    ['a 500 that is not JSON', 500, undefined, 1, 'CLI_SERVER_ERROR'],
  ])('maps %s to exit code %i', async (_label, status, body, exitCode, code) => {
    const result = await cli(['resume', 's1'], () => (body === undefined ? new Response('oops', { status }) : Response.json(body, { status })));
    expect(result.code).toBe(exitCode);
    expect(result.stderr).toContain(code);
    expect(result.stderr).not.toContain('TOKEN-1');
  });

  it('an unreachable server is CLI_CONNECTION_FAILED, exit code 7', async () => {
    const result = await cli(['sessions', 'show', 's1'], () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
    });
    expect(result.code).toBe(7);
    expect(result.stderr).toBe('helix-agents: CLI_CONNECTION_FAILED: Could not reach the AgentServer at http://agents.test (ECONNREFUSED).\n');
  });
});
