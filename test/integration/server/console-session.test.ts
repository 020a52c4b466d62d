/**
 * The console's session page (`GET {path}/api/sessions/:id`) against a real AgentServer and Postgres: runs as a
 * timeline, steps with bounded tool arguments and results, checkpoints and state changes, open human calls, the
 * sub-agent tree, usage per run, session and tree, history paging, and a sub-agent's own page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_LIMITS } from '../../../src/server/console/console-api.js';
import { BIG_ARGUMENT, BIG_NOTES, BIG_RESULT, desk, TOOL_SAID } from './support/console-agents.js';
import { ALICE, BOB, sessionPage, startConsoleKit, startSession, waitForOpenCalls, waitForStatus, type ConsoleKit } from './support/console-kit.js';

let kit: ConsoleKit;
beforeAll(async () => {
  kit = await startConsoleKit('console_session');
});
afterAll(async () => {
  await kit?.call('/console/api/sessions/page-client/abort', ALICE, {});
  await kit?.close();
});

const LIMIT = CONSOLE_LIMITS.valueChars;

describe('a session page', () => {
  it('shows runs as a timeline, steps with bounded values, checkpoints with state changes, and usage', async () => {
    await startSession(kit, 'page-big', 'big: please');
    await waitForStatus(kit, 'page-big');
    // A second turn (a new run of the completed session).
    const second = await kit.runtime.executor.execute(desk, 'hello again', { sessionId: 'page-big', userId: 'alice' });
    await second.result();
    const { status, body: page } = await sessionPage(kit, 'page-big');
    expect(status).toBe(200);

    expect(page.session).toMatchObject({ sessionId: 'page-big', agentType: 'desk', status: 'completed', mode: 'standard', awaitingHuman: false, openCallCount: 0, canResume: false, canRetry: false, streamId: 'page-big', liveSessionId: 'page-big', tags: [] });
    expect(page.session.output).toEqual({ kind: 'text', text: 'echo hello again', truncated: false, length: 16 });
    expect(page.session.customState).toMatchObject({ kind: 'json', truncated: true, length: JSON.stringify({ notes: BIG_NOTES }).length });
    expect(page.session.customState.text).toHaveLength(LIMIT);

    // Runs: two turns, linked, with durations and usage.
    expect(page.runsTotal).toBe(2);
    const [first, next] = page.runs;
    expect(first).toMatchObject({ turn: 1, status: 'completed', completionReason: 'text_response', stepCount: 2, nextRunId: next.runId });
    expect(next).toMatchObject({ turn: 2, status: 'completed', stepCount: 1 });
    expect(next.nextRunId).toBeUndefined();
    expect(first.durationMs).toBe(first.endedAt - first.startedAt);
    expect(first.usage).toMatchObject({ llmCalls: 2, inputTokens: 20, outputTokens: 10, totalTokens: 30, toolCalls: 1, toolFailures: 0 });
    expect(next.usage).toMatchObject({ llmCalls: 1, totalTokens: 15, toolCalls: 0 });
    expect(page.session.currentRun).toMatchObject({ runId: next.runId, turn: 2, status: 'completed' });
    expect(page.usage.session).toMatchObject({ llmCalls: 3, totalTokens: 45, toolCalls: 1 });
    expect(page.usage.tree).toMatchObject({ llmCalls: 3, totalTokens: 45 });

    // Steps: the user's message, the tool step (arguments and result bounded), the answer; then the second turn.
    const steps = page.history.steps;
    expect(page.history).toMatchObject({ totalMessages: 6, offset: 0, limit: CONSOLE_LIMITS.defaultMessages });
    expect(steps.map((step: any) => [step.runId, step.step])).toEqual([
      [first.runId, 0],
      [first.runId, 1],
      [first.runId, 2],
      [next.runId, 0],
      [next.runId, 1],
    ]);
    expect(steps[0].userText).toEqual({ kind: 'text', text: 'big: please', truncated: false, length: 11 });
    expect(steps[1].thinking.text).toBe('Echo it.');
    const [call] = steps[1].toolCalls;
    expect(call).toMatchObject({ toolName: 'echo_big', status: 'completed' });
    expect(call.arguments).toMatchObject({ kind: 'json', truncated: true, length: JSON.stringify({ text: BIG_ARGUMENT }).length });
    expect(call.arguments.text).toHaveLength(LIMIT);
    expect(call.result).toMatchObject({ kind: 'json', truncated: true, length: JSON.stringify({ echo: BIG_RESULT }).length });
    expect(call.result.text.length).toBeLessThanOrEqual(LIMIT);
    expect(steps[2].text).toMatchObject({ truncated: true });
    expect(steps[2].text.text.startsWith(TOOL_SAID)).toBe(true);
    expect(steps[1].checkpointId).toBe(`${first.runId}:1`);
    expect(steps[4].text.text).toBe('echo hello again');
    expect(JSON.stringify(page).length).toBeLessThan(40_000); // 5 KB arguments, 6 KB result, 3 KB state: all bounded

    // Checkpoints: one per step, the tool step's naming the state key it changed.
    expect(page.checkpointsTotal).toBe(3);
    const byId = new Map(page.checkpoints.map((checkpoint: any) => [checkpoint.id, checkpoint]));
    expect(byId.get(`${first.runId}:1`)).toMatchObject({ runId: first.runId, stepCount: 1, changedKeys: ['notes'] });
    expect(byId.get(`${first.runId}:2`)).toMatchObject({ changedKeys: [] });
  });

  it('pages the history: any window of messages, grouped by step', async () => {
    const window = (await sessionPage(kit, 'page-big', ALICE, '?messageOffset=1&messageLimit=2')).body.history;
    expect(window).toMatchObject({ totalMessages: 6, offset: 1, limit: 2 });
    expect(window.steps).toHaveLength(1); // the tool step: its assistant message and the tool's result
    expect(window.steps[0]).toMatchObject({ step: 1, firstSequence: 2, lastSequence: 3 });
    const last = (await sessionPage(kit, 'page-big', ALICE, '?messageLimit=2')).body.history;
    expect(last).toMatchObject({ offset: 4, limit: 2 });
    expect((await sessionPage(kit, 'page-big', ALICE, '?messageLimit=501')).status).toBe(400);
  });

  it('shows an open client call as pending, in its step and in the session state', async () => {
    await startSession(kit, 'page-client', 'client: where?');
    const page = await waitForOpenCalls(kit, 'page-client');
    const [pending] = page.pendingCalls;
    expect(pending).toMatchObject({ toolName: 'ask_user', kind: 'client', ownerSessionId: 'page-client', agentType: 'desk', runId: page.runs[0].runId });
    expect(pending.input).toEqual({ kind: 'json', text: '{"question":"Which city?"}', truncated: false, length: 26 });
    expect(typeof pending.createdAt).toBe('number');
    expect(page.session).toMatchObject({ status: 'active', awaitingHuman: true, openCallCount: 1, currentRun: { status: 'running' } });
  });

  it("shows the sub-agent tree with each child's status, the tree's usage, and the child's own page", async () => {
    await startSession(kit, 'page-tree', 'delegate: research tides');
    const page = await waitForStatus(kit, 'page-tree');
    expect(page.tree.nodeCount).toBe(1);
    expect(page.tree.truncated).toBe(false);
    const [child] = page.tree.children;
    expect(child).toMatchObject({ agentType: 'helper', mode: 'ephemeral', refStatus: 'completed', status: 'completed', remote: false, children: [] });
    expect(child.parentToolCallId).toBe(page.history.steps[1].toolCalls[0].toolCallId);
    expect(page.history.steps[1].toolCalls[0]).toMatchObject({ toolName: 'subagent__helper', status: 'completed' });
    expect(page.history.steps[2].text.text).toBe(`${TOOL_SAID}${JSON.stringify({ answer: 'helped' })}`);
    expect(page.usage.session.llmCalls).toBe(2);
    expect(page.usage.tree.llmCalls).toBe(3); // the helper's call counts for the tree

    const childPage = await sessionPage(kit, child.sessionId);
    expect(childPage.status).toBe(200);
    expect(childPage.body.session).toMatchObject({ sessionId: child.sessionId, agentType: 'helper', status: 'completed', parentSessionId: 'page-tree', rootSessionId: 'page-tree', streamId: 'page-tree', liveSessionId: 'page-tree' });
    expect(childPage.body.usage.session.llmCalls).toBe(1);
    expect(childPage.body.usage.tree).toBeNull();
    expect((await sessionPage(kit, child.sessionId, BOB)).status).toBe(404);
    expect((await sessionPage(kit, 'page-tree', BOB)).status).toBe(404);
    const control = await kit.call(`/console/api/sessions/${child.sessionId}/retry`, ALICE, {});
    expect(control.status).toBe(409);
    expect(control.body.error.code).toBe('NOT_A_ROOT_SESSION');
  });

  it('answers 404 for an unknown or malformed session id', async () => {
    for (const id of ['nope', 'bad%20id']) {
      const { status, body } = await sessionPage(kit, id);
      expect(status).toBe(404);
      expect(body.error.code).toBe('SESSION_NOT_FOUND');
    }
  });
});
