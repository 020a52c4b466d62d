import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SessionListQuery } from '../../../store/session-listing.js';
import { expectCode, type ContractContext } from './context.js';

/**
 * Contract: `listSessions` (the console's and the CLI's view): filters, newest first, keyset paging, totals, refusals.
 *
 * @example
 * defineSessionListContract(context);
 */
export function defineSessionListContract(context: ContractContext): void {
  describe('listSessions', () => {
    const list = (query: SessionListQuery) => {
      const listSessions = context.store.listSessions?.bind(context.store);
      expect(listSessions).toBeTypeOf('function'); // both shipped stores list sessions
      return listSessions!(query);
    };
    const pending = (submittedAt?: number) => ({
      toolCallId: 'c1',
      toolName: 'ask',
      kind: 'client' as const,
      input: {},
      ownerSessionId: 'owner',
      agentType: 'lister',
      runId: 'r1',
      createdAt: 1,
      ...(submittedAt === undefined ? {} : { submittedAt }),
    });

    it('filters by agent, status, human wait, user, update time and top level; counts every match', async () => {
      const agentType = `lister-${randomUUID()}`;
      const make = (label: string, options: Record<string, unknown> = {}) => context.createSession(label, { agentType, ...options });
      const waiting = await make('list-waiting', { userId: 'ann' });
      await context.store.saveState(waiting.sessionId, { pendingClientToolCalls: { c1: pending() } });
      const answered = await make('list-answered', { userId: 'ann' });
      await context.store.saveState(answered.sessionId, { pendingClientToolCalls: { c1: pending(5) } });
      const done = await make('list-done', { status: 'completed' });
      const child = await make('list-child', { parentSessionId: done.sessionId, rootSessionId: done.sessionId });
      const ids = async (query: SessionListQuery) => (await list({ agentType, ...query })).sessions.map((row) => row.sessionId).sort();

      expect(await ids({})).toEqual([waiting.sessionId, answered.sessionId, done.sessionId].sort());
      expect(await ids({ rootsOnly: false })).toEqual([waiting.sessionId, answered.sessionId, done.sessionId, child.sessionId].sort());
      expect(await ids({ status: ['completed'] })).toEqual([done.sessionId]);
      expect(await ids({ awaitingHuman: true })).toEqual([waiting.sessionId]);
      expect(await ids({ awaitingHuman: false })).toEqual([answered.sessionId, done.sessionId].sort());
      expect(await ids({ userId: 'ann' })).toEqual([waiting.sessionId, answered.sessionId].sort());
      expect(await ids({ userId: null })).toEqual([done.sessionId]);
      expect(await ids({ updatedSince: Date.now() + 60_000 })).toEqual([]);
      const page = await list({ agentType, awaitingHuman: true });
      expect(page.total).toBe(1);
      expect(page.sessions[0]).toMatchObject({ sessionId: waiting.sessionId, agentType, status: 'active', userId: 'ann', awaitingHuman: true, stepCount: 0 });
      expect(page.nextCursor).toBeUndefined();
    });

    it('pages newest first without losing or repeating a session', async () => {
      const agentType = `pager-${randomUUID()}`;
      const created: string[] = [];
      for (let index = 0; index < 5; index += 1) created.push((await context.createSession(`page-${index}`, { agentType })).sessionId);
      const seen: Array<{ sessionId: string; updatedAt: number }> = [];
      let cursor: string | undefined;
      do {
        const page = await list({ agentType, limit: 2, ...(cursor === undefined ? {} : { cursor }) });
        expect(page.total).toBe(5);
        expect(page.sessions.length).toBeLessThanOrEqual(2);
        seen.push(...page.sessions);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(seen.map((row) => row.sessionId).sort()).toEqual([...created].sort());
      const times = seen.map((row) => row.updatedAt);
      expect(times).toEqual([...times].sort((left, right) => right - left));
    });

    it.each([
      ['a limit of 0', { limit: 0 }],
      ['a limit over 500', { limit: 501 }],
      ['an unknown status', { status: ['sleeping'] }],
      ['a cursor it never returned', { cursor: 'not-a-cursor' }],
    ])('refuses %s with INVALID_ARGUMENT', async (_name, query) => {
      await expectCode(list(query as SessionListQuery), 'INVALID_ARGUMENT');
    });
  });
}
