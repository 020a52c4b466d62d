/**
 * Rolling deploy: a second process starts with the same DBOS executor id while the first runs three sessions.
 * DBOS hands the pending workflows to the new process; the old one loses ownership mid-run. Ownership loss is not
 * failure: nothing is recorded failed, no stream is ended early, and every session completes exactly once.
 */
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/types/result.js';
import { useDrill } from './support/drill.js';
import { DRILL_SCENARIOS } from './support/drill-scenarios.js';
import { DRILL_TIMEOUTS } from './support/drill-flow.js';
import { chunkRowCount, toolRunCounts, waitUntil } from './support/durable-probes.js';
import { describeConversation, storedMessages } from './support/session-snapshot.js';

const SESSIONS = ['rolling-1', 'rolling-2', 'rolling-3'];

const env = useDrill('crash_rolling', { sessions: SESSIONS.map((sessionId) => [sessionId, DRILL_SCENARIOS.threeSteps] as const) });

describe('rolling deploy: two live processes share one executor id', () => {
  it('process B starts while A runs 3 sessions; all complete once and A exits cleanly', async () => {
    const executorId = 'rolling-local';
    const first = env.workers.spawn('old process', executorId, env.workerConfig('start', SESSIONS, { toolDelayMs: 400 }));
    for (const sessionId of SESSIONS) await first.waitForEvent('started', DRILL_TIMEOUTS.start, (event) => event.sessionId === sessionId);
    await waitUntil('every session in its first tool', DRILL_TIMEOUTS.signal, async () => {
      const counts = await Promise.all(SESSIONS.map((sessionId) => toolRunCounts(env.pool, sessionId)));
      return counts.every((count) => count.call_1_lookup_a === 1);
    });
    const second = env.workers.spawn('new process', executorId, env.workerConfig('recover', SESSIONS, { toolDelayMs: 400 }));

    const results = new Map<string, AgentResult[]>();
    for (const worker of [first, second]) {
      for (const sessionId of SESSIONS) {
        const { result } = await worker.waitForEvent('result', DRILL_TIMEOUTS.result, (event) => event.sessionId === sessionId);
        results.set(sessionId, [...(results.get(sessionId) ?? []), result as AgentResult]);
      }
    }
    expect(await first.waitForExit(DRILL_TIMEOUTS.exit)).toBe(0);
    expect(await second.waitForExit(DRILL_TIMEOUTS.exit)).toBe(0);

    for (const sessionId of SESSIONS) {
      // Both processes report the one outcome.
      expect(results.get(sessionId)?.map((result) => [result.status, result.output])).toEqual([
        ['completed', 'Three facts.'],
        ['completed', 'Three facts.'],
      ]);
      const { runs } = await env.stateStore.listRuns(sessionId);
      expect(runs.map((run) => run.status)).toEqual(['completed']);
      expect(await env.stateStore.loadState(sessionId)).toMatchObject({ status: 'completed', output: 'Three facts.' });
      expect(describeConversation(await storedMessages(env, sessionId))).toEqual([
        'user',
        'assistant[call_1_lookup_a]',
        'tool(call_1_lookup_a)',
        'assistant[call_2_lookup_b]',
        'tool(call_2_lookup_b)',
        'assistant[call_3_lookup_c]',
        'tool(call_3_lookup_c)',
        'assistant',
      ]);
      expect(await chunkRowCount(env.pool, sessionId, 'output')).toBe(1);
      expect(await chunkRowCount(env.pool, sessionId, 'error')).toBe(0);
    }
  }, 120_000);
});
