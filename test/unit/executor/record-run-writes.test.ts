/**
 * `RunLauncher.recordRun`: which start writes it asks of its writer (no database: a writer that records the calls).
 */
import { describe, expect, it } from 'vitest';
import { RunLauncher, type PlannedRun } from '../../../src/executor/run-launcher.js';
import type { StartWriter } from '../../../src/executor/start-writes.js';
import type { DBOSAgentExecutorConfig } from '../../../src/executor/types.js';
import type { HookManager } from '../../../src/hooks/index.js';
import type { RunRecord } from '../../../src/types/session.js';

function recordingWriter(together: boolean): { writer: StartWriter; calls: string[] } {
  const calls: string[] = [];
  const call = (name: string) => async () => void calls.push(name);
  const writer: StartWriter = {
    createSession: call('createSession'),
    compareAndSetStatus: async () => ({ ok: true, newVersion: 2 }),
    reactivateStream: call('reactivateStream'),
    clearInterruptFlag: call('clearInterruptFlag'),
    createRun: async () => {
      calls.push('createRun');
      return {} as RunRecord;
    },
    together,
    appendMessages: call('appendMessages'),
    saveState: call('saveState'),
    openStream: call('openStream'),
  };
  return { writer, calls };
}

function planned(previous: RunRecord | null): PlannedRun {
  const input = {
    sessionId: 's1',
    runId: 'r2',
    agentType: 'assistant',
    streamId: 's1',
    workflowId: 'wf-r2',
    startSequence: 0,
    rootSessionId: 's1',
    warmWindowMs: 1,
    userMessage: { role: 'user' as const, content: 'hi' },
    journal: { format: 2 as const, journal: 'fused' as const },
  };
  return { input, previous, stream: null };
}

const launcher = new RunLauncher({} as DBOSAgentExecutorConfig, {} as HookManager, () => ({}) as never);
const previousRun = { runId: 'r1', sessionId: 's1', turn: 1, status: 'completed', stepCount: 1, startSequence: 0, startedAt: 1 } as RunRecord;

describe('RunLauncher.recordRun', () => {
  it.each([
    ['a later turn (a previous run)', true, previousRun, {}],
    ['a session the start took, without a previous run', true, null, { sessionLocked: true }],
    ['a session the start created', false, null, { sessionCreated: true }],
  ] as const)('%s: the interrupt flag cleared → %s', async (_case, clears, previous, held) => {
    for (const together of [true, false]) {
      const { writer, calls } = recordingWriter(together);
      await launcher.recordRun(writer, planned(previous), held);
      expect(calls.includes('clearInterruptFlag'), `together: ${together}`).toBe(clears);
      expect(calls).toContain('createRun');
    }
  });
});
