/**
 * A sub-agent's session belongs to the principal of its root, on every route: on a server that also admits anonymous
 * requests (`authenticate` with `allowUnauthenticated: true`), an anonymous request cannot read another principal's
 * sub-agent session (sub-agent sessions carry no `userId`, which the anonymous principal's sessions lack too), and the
 * root's principal can. Real AgentServer on loopback, real Postgres and DBOS; only the model is scripted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/free-port.js';
import { jsonOf, startServerKit, type ServerKit } from './support/server-kit.js';
import { top, treeTestModel } from './support/tree-agents.js';

const ALICE = 'token-alice';
let kit: ServerKit;

beforeAll(async () => {
  kit = await startServerKit('child_access', { agents: [top], allowUnauthenticated: true }, {}, treeTestModel());
}, 120_000);

afterAll(async () => {
  await kit?.close();
});

describe('a sub-agent session on a server that admits anonymous requests', () => {
  it("is the root principal's: anonymous requests get 404 on /status and /sse, the root's principal reads it", async () => {
    expect((await kit.call('/start', { token: ALICE, body: { agentType: 'top', sessionId: 'access-deep', input: 'deep: pay the bill' } })).status).toBe(201);
    let root: any;
    await waitFor(
      async () => {
        root = await jsonOf(await kit.call('/status?sessionId=access-deep', { token: ALICE }));
        return root.pendingToolCalls?.length === 1;
      },
      30_000,
      'the leaf waits for an approval',
    );
    const call = root.pendingToolCalls[0];
    const child: string = call.ownerSessionId;
    expect(child).not.toBe('access-deep');

    const anonymousStatus = await kit.call(`/status?sessionId=${encodeURIComponent(child)}`);
    expect(anonymousStatus.status).toBe(404);
    expect(await jsonOf(anonymousStatus)).toMatchObject({ error: { code: 'SESSION_NOT_FOUND' } });
    const anonymousStream = await kit.call(`/sse?sessionId=${encodeURIComponent(child)}`);
    expect(anonymousStream.status).toBe(404);
    await anonymousStream.body?.cancel();
    expect((await kit.call('/status?sessionId=access-deep')).status).toBe(404); // the root itself, as before

    const own = await kit.call(`/status?sessionId=${encodeURIComponent(child)}`, { token: ALICE });
    expect(own.status).toBe(200);
    expect(await jsonOf(own)).toMatchObject({ sessionId: child, awaitingApproval: true });

    const answer = await kit.call('/submit-tool-result', {
      token: ALICE,
      body: { kind: 'approval-response', sessionId: 'access-deep', toolCallId: call.toolCallId, approvalId: call.approvalId, approved: true },
    });
    expect(answer.status).toBe(200);
    await waitFor(async () => (await jsonOf(await kit.call('/status?sessionId=access-deep', { token: ALICE }))).status === 'completed', 30_000, 'completed');
  }, 90_000);
});
