import { describe, expect, it } from 'vitest';
import { expectCode, pendingCall, runInput, type ContractContext } from './context.js';

/**
 * Contract: run records with contiguous turns.
 *
 * @example
 * defineRunContract(context);
 */
export function defineRunContract(context: ContractContext): void {
  describe('runs', () => {
    it('assigns contiguous turns, is idempotent by runId, and lists runs as { runs }', async () => {
      const { sessionId: id } = await context.createSession('runs');
      const first = await context.store.createRun(id, runInput('r1', { workflowId: 'wf-1', metadata: { source: 'test' } }));
      expect(first).toEqual({ ...runInput('r1'), sessionId: id, turn: 1, workflowId: 'wf-1', metadata: { source: 'test' } });
      expect((await context.store.createRun(id, runInput('r2', { previousRunId: 'r1', startSequence: 42 }))).turn).toBe(2);
      expect(await context.store.createRun(id, runInput('r1', { status: 'failed' }))).toEqual(first);
      const { runs } = await context.store.listRuns(id);
      expect(runs.map((run) => [run.runId, run.turn])).toEqual([
        ['r1', 1],
        ['r2', 2],
      ]);
      expect(await context.store.getCurrentRun(id)).toMatchObject({ runId: 'r2', turn: 2, previousRunId: 'r1', startSequence: 42 });
      expect(await context.store.getRun(id, 'r1')).toEqual(first);
      expect(await context.store.getRun(id, 'nope')).toBeNull();
      expect(await context.store.getCurrentRun(context.sessionId('missing'))).toBeNull();
      expect(await context.store.listRuns(context.sessionId('missing'))).toEqual({ runs: [] });
    });

    it('concurrent createRun calls get turns 1..n without gaps', async () => {
      const { sessionId: id } = await context.createSession('runs-race');
      await Promise.all(Array.from({ length: 10 }, (_, index) => context.store.createRun(id, runInput(`r${index}`))));
      const { runs } = await context.store.listRuns(id);
      expect(runs.map((run) => run.turn)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(new Set(runs.map((run) => run.runId)).size).toBe(10);
    });

    it('updateRunStatus sets the status and patched fields, keeping the rest', async () => {
      const { sessionId: id } = await context.createSession('runs-update');
      await context.store.createRun(id, runInput('r1', { workflowId: 'wf-1' }));
      await context.store.updateRunStatus(id, 'r1', 'suspended_client_tool', { stepCount: 3 });
      await context.store.updateRunStatus(id, 'r1', 'completed', { completionReason: 'finish_tool', endedAt: 1_700_000_000_500, metadata: { tokens: 7 } });
      expect(await context.store.getRun(id, 'r1')).toMatchObject({
        status: 'completed',
        stepCount: 3,
        workflowId: 'wf-1',
        completionReason: 'finish_tool',
        endedAt: 1_700_000_000_500,
        metadata: { tokens: 7 },
      });
      // Running again (a resumed cancelled run): no outcome until it ends.
      await context.store.updateRunStatus(id, 'r1', 'aborted', { completionReason: 'aborted', error: 'ABORTED: stop', endedAt: 1_700_000_000_600 });
      await context.store.updateRunStatus(id, 'r1', 'running');
      const resumed = await context.store.getRun(id, 'r1');
      expect(resumed).toMatchObject({ status: 'running', stepCount: 3, workflowId: 'wf-1' });
      expect([resumed?.completionReason, resumed?.error, resumed?.endedAt]).toEqual([undefined, undefined, undefined]);
      await expectCode(context.store.updateRunStatus(id, 'nope', 'failed'), 'INVALID_ARGUMENT');
      await expectCode(context.store.createRun(context.sessionId('missing'), runInput('r1')), 'SESSION_NOT_FOUND');
      await expectCode(context.store.createRun(id, runInput('r9', { turn: 5 })), 'INVALID_ARGUMENT');
    });

    it('compareAndSetRunStatus writes only from the expected statuses, one winner among racers', async () => {
      const store = context.store;
      expect(typeof store.compareAndSetRunStatus).toBe('function'); // both shipped stores offer it
      const { sessionId: id } = await context.createSession('runs-cas');
      await store.createRun(id, runInput('r1', { stepCount: 2 }));
      const ended = { completionReason: 'aborted' as const, error: 'ABORTED: stop', endedAt: 1_700_000_000_700 };
      const racers = await Promise.all(Array.from({ length: 5 }, () => store.compareAndSetRunStatus!(id, 'r1', ['running'], 'aborted', ended)));
      expect(racers.filter(Boolean)).toHaveLength(1);
      expect(await store.getRun(id, 'r1')).toMatchObject({ status: 'aborted', stepCount: 2, ...ended });
      // Not from an unexpected status: nothing written.
      expect(await store.compareAndSetRunStatus!(id, 'r1', ['running', 'suspended_client_tool'], 'failed', { error: 'late' })).toBe(false);
      expect(await store.getRun(id, 'r1')).toMatchObject({ status: 'aborted', error: 'ABORTED: stop' });
      expect(await store.compareAndSetRunStatus!(id, 'r1', ['aborted'], 'running')).toBe(true);
      expect((await store.getRun(id, 'r1'))?.error).toBeUndefined();
      await expectCode(store.compareAndSetRunStatus!(id, 'nope', ['running'], 'failed'), 'INVALID_ARGUMENT');
    });

    it('names, of the runs asked, the aborted ones and the running ones whose session may await a human', async () => {
      const { store } = context;
      const find = store.runsWaitingOrAborted?.bind(store);
      expect(find).toBeTypeOf('function'); // both shipped stores answer it
      const session = async (name: string, status: 'running' | 'aborted' | 'completed', state: Parameters<typeof store.saveState>[1] = {}) => {
        const { sessionId } = await context.createSession(name);
        await store.createRun(sessionId, runInput(`${name}-run`, { status }));
        await store.saveState(sessionId, state);
        return { sessionId, runId: `${name}-run` };
      };
      const open = await session('look-open', 'running', { pendingClientToolCalls: { a: pendingCall('a', 5), b: pendingCall('b') } });
      const answered = await session('look-answered', 'running', { pendingClientToolCalls: { a: pendingCall('a', 5) } });
      const aborted = await session('look-aborted', 'aborted');
      const ended = await session('look-ended', 'completed', { pendingClientToolCalls: { a: pendingCall('a') } });
      const idle = await session('look-idle', 'running');
      const child = context.sessionId('look-child');
      const owning = await session('look-owning', 'running', { clientToolCallOwnership: { c: child, d: child }, completedClientToolCalls: { c: 3 } });
      const settled = await session('look-settled', 'running', { clientToolCallOwnership: { c: child }, completedClientToolCalls: { c: 3 } });
      const asked = [open, answered, aborted, ended, idle, owning, settled, { sessionId: context.sessionId('look-missing'), runId: 'r9' }];
      expect(new Set(await find!(asked))).toEqual(new Set([open.runId, aborted.runId, owning.runId]));
      expect(await find!([])).toEqual([]);
      // A run id asked under another session is not that run.
      expect(await find!([{ sessionId: idle.sessionId, runId: open.runId }])).toEqual([]);
      await expectCode(find!([{ sessionId: '', runId: 'r1' }]), 'INVALID_ARGUMENT');
    });
  });
}
