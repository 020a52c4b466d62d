/**
 * The console's JSON API (AgentServerOptions.console) against a real AgentServer on a loopback port and a real
 * Postgres: the agents, the session list (filters, paging, counts), authentication, isolation between principals,
 * a disabled console, a custom path and a store without listSessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentServer } from '../../../src/server/agent-server.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import { desk } from './support/console-agents.js';
import { ALICE, BOB, callAt, startConsoleKit, startSession, waitForOpenCalls, waitForStatus, type ConsoleKit } from './support/console-kit.js';

let kit: ConsoleKit;
beforeAll(async () => {
  kit = await startConsoleKit('console_api');
  await startSession(kit, 'list-echo-1', 'hello one');
  await startSession(kit, 'list-echo-2', 'hello two');
  await startSession(kit, 'list-wait', 'approve: five');
  await startSession(kit, 'list-bob', 'hello bob', BOB);
  await Promise.all([waitForStatus(kit, 'list-echo-1'), waitForStatus(kit, 'list-echo-2'), waitForOpenCalls(kit, 'list-wait')]);
});
afterAll(async () => {
  await kit?.call('/console/api/sessions/list-wait/abort', ALICE, {});
  await kit?.close();
});

const ids = (page: any): string[] => page.sessions.map((row: any) => row.sessionId);

describe('GET {path}/api/agents', () => {
  it('lists the agents with their effective tools, kinds and human-in-the-loop flags', async () => {
    const { status, body } = await kit.call('/console/api/agents', ALICE);
    expect(status).toBe(200);
    expect(body.agents).toHaveLength(1);
    const [agent] = body.agents;
    expect(agent).toMatchObject({ name: 'desk', description: 'The console test desk.', maxSteps: 5, hasApprovalTools: true, hasClientTools: true, hasSubAgents: true, hasOutputSchema: false, chat: false });
    expect(agent.tools.map((tool: any) => [tool.name, tool.kind, tool.approval])).toEqual([
      ['pay', 'server', 'always'],
      ['ask_user', 'client', 'never'],
      ['slow_tool', 'server', 'never'],
      ['echo_big', 'server', 'never'],
      ['subagent__helper', 'subagent', 'never'],
    ]);
    expect(agent.tools[4].agentType).toBe('helper');
  });
});

describe('GET {path}/api/sessions', () => {
  it("lists the principal's top-level sessions, newest first, with counts", async () => {
    const { status, body } = await kit.call('/console/api/sessions', ALICE);
    expect(status).toBe(200);
    expect(new Set(ids(body))).toEqual(new Set(['list-wait', 'list-echo-2', 'list-echo-1']));
    const updated = body.sessions.map((row: any) => row.updatedAt);
    expect(updated).toEqual([...updated].sort((left: number, right: number) => right - left));
    expect(body.total).toBe(3);
    expect(body.nextCursor).toBeNull();
    expect(body.counts).toEqual({ awaitingHuman: 1, byStatus: { active: 1, completed: 2, failed: 0, interrupted: 0, paused: 0 } });
    const waiting = body.sessions.find((row: any) => row.sessionId === 'list-wait');
    expect(waiting).toMatchObject({ agentType: 'desk', status: 'active', mode: 'standard', awaitingHuman: true });
    expect(waiting.userId).toBeUndefined();
    expect(typeof waiting.updatedAt).toBe('number');
  });

  it('filters by agent, status, human wait and update time', async () => {
    const completed = (await kit.call('/console/api/sessions?status=completed', ALICE)).body;
    expect(ids(completed).sort()).toEqual(['list-echo-1', 'list-echo-2']);
    expect(completed.counts.awaitingHuman).toBe(1); // counts ignore the filters
    expect(ids((await kit.call('/console/api/sessions?status=active,interrupted', ALICE)).body)).toEqual(['list-wait']);
    expect(ids((await kit.call('/console/api/sessions?awaitingHuman=true', ALICE)).body)).toEqual(['list-wait']);
    expect(ids((await kit.call('/console/api/sessions?awaitingHuman=false', ALICE)).body).sort()).toEqual(['list-echo-1', 'list-echo-2']);
    expect((await kit.call('/console/api/sessions?agent=desk', ALICE)).body.total).toBe(3);
    expect((await kit.call('/console/api/sessions?agent=nobody', ALICE)).body).toMatchObject({ sessions: [], total: 0 });
    expect((await kit.call(`/console/api/sessions?updatedSince=${Date.now() + 60_000}`, ALICE)).body.total).toBe(0);
    expect((await kit.call('/console/api/sessions?updatedSince=0', ALICE)).body.total).toBe(3);
  });

  it('pages with a cursor: every session once, then no cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page += 1) {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const { body } = await kit.call(`/console/api/sessions?limit=2${query}`, ALICE);
      expect(body.total).toBe(3);
      seen.push(...ids(body));
      cursor = body.nextCursor;
      if (cursor === null) break;
    }
    expect(seen).toHaveLength(3);
    expect(new Set(seen)).toEqual(new Set(['list-echo-1', 'list-echo-2', 'list-wait']));
  });

  it('refuses a malformed query with a typed 400 that does not echo it', async () => {
    for (const query of ['status=SECRET-123', 'limit=0', 'limit=201', 'awaitingHuman=yes', 'updatedSince=-1', 'cursor=SECRET-123']) {
      const { status, body } = await kit.call(`/console/api/sessions?${query}`, ALICE);
      expect(status, query).toBe(400);
      expect(['INVALID_REQUEST', 'INVALID_ARGUMENT']).toContain(body.error.code);
      expect(JSON.stringify(body)).not.toContain('SECRET-123');
    }
  });
});

describe('isolation and authentication', () => {
  it("gives another principal an empty list, zero counts and 404 for every one of alice's sessions", async () => {
    const { body } = await kit.call('/console/api/sessions', BOB);
    expect(ids(body)).toEqual(['list-bob']);
    expect(body.counts).toEqual({ awaitingHuman: 0, byStatus: { active: 0, completed: 1, failed: 0, interrupted: 0, paused: 0 } });
    const page = await kit.call('/console/api/sessions/list-wait', BOB);
    expect(page).toEqual({ status: 404, body: { error: { code: 'SESSION_NOT_FOUND', message: 'No session with this id exists for this principal.' } } });
    const toolCallId = (await kit.call('/console/api/sessions/list-wait', ALICE)).body.pendingCalls[0].toolCallId;
    const actions: Array<[string, unknown]> = [
      ['approve', { toolCallId }],
      ['deny', { toolCallId, reason: 'no' }],
      ['submit', { toolCallId, result: 1 }],
      ['interrupt', {}],
      ['abort', {}],
      ['resume', {}],
      ['retry', {}],
      ['branch', { message: 'copy' }],
    ];
    for (const [action, body] of actions) {
      const answer = await kit.call(`/console/api/sessions/list-wait/${action}`, BOB, body);
      expect(answer.status, action).toBe(404);
      expect(answer.body.error.code).toBe('SESSION_NOT_FOUND');
    }
    const after = (await kit.call('/console/api/sessions/list-wait', ALICE)).body;
    expect(after.session).toMatchObject({ status: 'active', awaitingHuman: true, currentRun: { status: 'running' } });
    expect(after.pendingCalls.map((call: any) => call.toolCallId)).toEqual([toolCallId]);
    expect((await kit.call('/console/api/sessions', BOB)).body.total).toBe(1); // bob's branch attempt created nothing
  });

  it('answers 401 without a credential or with an unknown one, on every console route', async () => {
    for (const [path, body] of [
      ['/console/api/agents', undefined],
      ['/console/api/sessions', undefined],
      ['/console/api/sessions/list-wait', undefined],
      ['/console/api/sessions/list-wait/approve', { toolCallId: 'x' }],
    ] as const) {
      for (const token of [undefined, 'token-mallory']) {
        const answer = await kit.call(path, token, body);
        expect(answer.status, `${path} ${String(token)}`).toBe(401);
        expect(answer.body.error.code).toBe('UNAUTHENTICATED');
      }
    }
  });
});

describe('configuration', () => {
  it('serves no console unless enabled, and under a custom path when given', async () => {
    const plain = await kit.serve({});
    const disabled = await callAt(plain.url, '/console/api/agents', ALICE);
    expect(disabled).toEqual({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'No such route.' } } });
    const custom = await kit.serve({ basePath: '/agents', console: { path: '/ops/console' } });
    expect((await callAt(custom.url, '/agents/ops/console/api/agents', ALICE)).body.agents[0].name).toBe('desk');
    expect((await callAt(custom.url, '/agents/console/api/agents', ALICE)).status).toBe(404);
    const base = { executor: kit.runtime.executor, stateStore: kit.runtime.stateStore, streamManager: kit.runtime.streamManager, agents: [desk], allowUnauthenticated: true };
    for (const path of ['console', '/', '/console/', '/a b']) {
      expect(() => new AgentServer({ ...base, console: { path } }), path).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });

  it('answers 501 SESSION_LISTING_UNSUPPORTED for a store without listSessions; session pages still work', async () => {
    const store = kit.runtime.stateStore;
    const withoutListing = new Proxy(store, {
      get: (target, property) => {
        if (property === 'listSessions') return undefined;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as SessionStateStore;
    const server = await kit.serve({ stateStore: withoutListing, console: {} });
    const listing = await callAt(server.url, '/console/api/sessions', ALICE);
    expect(listing.status).toBe(501);
    expect(listing.body.error.code).toBe('SESSION_LISTING_UNSUPPORTED');
    const page = await callAt(server.url, '/console/api/sessions/list-echo-1', ALICE);
    expect(page.status).toBe(200);
    expect(page.body.session.status).toBe('completed');
    expect(page.body.usage).toBeNull(); // this server has no usage store
  });
});
