/**
 * GET {console}/api/sessions/{id}/stream: a companion's own stream followed live through the console (its root's
 * principal), as `/sse` does; any other principal gets the same 404 as a missing session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/free-port.js';
import { boss, call, parentScript } from '../companions/companion-kit.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { readSse, startServerKit, type ServerKit } from '../server/support/server-kit.js';

const llm = scriptedLLM();
let kit: ServerKit;
beforeAll(async () => {
  kit = await startServerKit('console_live', { agents: [boss], console: {} }, { persistentWarmWindowMs: 400 }, llm.adapter);
});
afterAll(async () => {
  await kit?.close();
});

const get = (path: string, token: string, headers: Record<string, string> = {}): Promise<Response> => fetch(`${kit.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

describe('a companion followed live on its session page', () => {
  it('streams the companion’s own run from its start to its end, for its root’s principal only', async () => {
    // The watcher's model call takes 1.5 s ("slow"): its run is still running when the page starts following it.
    llm.use(parentScript([call('w1', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'slow look' }), { type: 'text', text: 'spawned' }]));
    const started = await fetch(`${kit.baseUrl}/start`, {
      method: 'POST',
      headers: { authorization: 'Bearer token-alice', 'content-type': 'application/json' },
      body: JSON.stringify({ agentType: 'boss', sessionId: 'live-boss', input: 'go' }),
    });
    expect(started.status).toBe(201);
    const companion = 'live-boss-agent-w';
    await waitFor(async () => (await kit.runtime.stateStore.getCurrentRun(companion))?.status === 'running', 10_000, 'the companion runs');

    const page = (await (await get(`/console/api/sessions/${companion}`, 'token-alice')).json()) as { session: unknown };
    expect(page.session).toMatchObject({ sessionId: companion, parentSessionId: 'live-boss', streamId: companion, liveSessionId: null });

    expect((await kit.runtime.stateStore.getCurrentRun(companion))?.status).toBe('running'); // followed while it runs
    const live = await get(`/console/api/sessions/${companion}/stream`, 'token-alice');
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(live); // ends after the companion's own last chunk
    const last = events.at(-1)?.data;
    expect(last).toMatchObject({ type: 'output', agentId: companion, output: { seen: 'slow look' } });
    expect(events.every((event) => event.data.sequence === event.id)).toBe(true);
    const run = await kit.runtime.stateStore.getCurrentRun(companion);
    expect(events[0]!.id).toBeGreaterThan(run!.startSequence);

    // Resumable: after the last event but one, only the last comes again.
    const resumed = await readSse(await get(`/console/api/sessions/${companion}/stream`, 'token-alice', { 'last-event-id': String(events.at(-2)?.id ?? 0) }));
    expect(resumed.map((event) => event.id)).toEqual([events.at(-1)!.id]);

    // /sse serves a companion's session to its root's principal too (ServerContext.ownedTreeSession), and to no one else.
    const sse = await get(`/sse?sessionId=${companion}`, 'token-alice');
    expect(sse.status).toBe(200);
    await sse.body?.cancel();
    expect((await get(`/sse?sessionId=${companion}`, 'token-bob')).status).toBe(404);
    const other = await get(`/console/api/sessions/${companion}/stream`, 'token-bob');
    const missing = await get('/console/api/sessions/live-nobody/stream', 'token-bob');
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual(await missing.json());
    expect((await fetch(`${kit.baseUrl}/console/api/sessions/${companion}/stream`)).status).toBe(401);
    expect((await get(`/console/api/sessions/${companion}/stream`, 'token-alice', { 'last-event-id': 'x' })).status).toBe(400);
  });
});
