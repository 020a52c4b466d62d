import { describe, expect, it } from 'vitest';
import { NotResumableError } from '../../../src/errors/index.js';
import { abortErrorText, DBOS_CANCELLED_ERROR } from '../../../src/orchestration/abort-text.js';
import { recordCancelledRun } from '../../../src/steps/dbos-cancel.js';
import { isStandardRootRun, reopenCancelledRun, reopenResumedRun } from '../../../src/steps/reopen-run.js';
import { SEPARATE_RECORD } from '../../../src/journal/step-record.js';
import { InMemoryStateStore } from '../../../src/store/memory/in-memory-state-store.js';
import { InMemoryStreamManager } from '../../../src/stream/memory/in-memory-stream-manager.js';
import type { RunScope } from '../../../src/steps/step-scope.js';

/** A session with one running run (`r1`) and its stream holding a chunk. */
async function runningSession(sessionId: string) {
  const stateStore = new InMemoryStateStore();
  const streamManager = new InMemoryStreamManager();
  await stateStore.createSession(sessionId, { agentType: 'a', streamId: sessionId });
  await stateStore.createRun(sessionId, { runId: 'r1', status: 'running', stepCount: 0, startSequence: 0, startedAt: 1, workflowId: 'w1' });
  const writer = await streamManager.createWriter(sessionId, sessionId, 'a');
  await writer.write({ type: 'text_delta', delta: 'Hi', agentId: sessionId, agentType: 'a', step: 1, timestamp: 1 });
  await writer.close();
  const scope: RunScope = { sessionId, runId: 'r1', agentType: 'a', streamId: sessionId, workflowId: 'w1', rootSessionId: sessionId };
  return { stateStore, streamManager, scope };
}

describe('reopenCancelledRun (a resumed workflow of a run a DBOS cancel recorded aborted)', () => {
  it('reopens a cancelled run: session active, run running, stream active', async () => {
    const { stateStore, streamManager, scope } = await runningSession('s1');
    expect(await recordCancelledRun(stateStore, streamManager, scope)).toBe(true);
    expect(await streamManager.getInfo('s1')).toMatchObject({ status: 'ended' });

    expect(await reopenCancelledRun(stateStore, streamManager, scope)).toBe(true);
    const state = await stateStore.loadState('s1');
    expect(state).toMatchObject({ status: 'active' });
    expect(state?.failureReason).toBeUndefined();
    expect(state?.error).toBeUndefined();
    expect((await stateStore.getRun('s1', 'r1'))?.status).toBe('running');
    expect(await streamManager.getInfo('s1')).toMatchObject({ status: 'active' });
    // Reopened once: a second call finds the run running (a crash recovery) and does nothing.
    expect(await reopenCancelledRun(stateStore, streamManager, scope)).toBe(false);
  });

  it("clears abort()'s interrupt flag, keeps an interrupt's", async () => {
    const { stateStore, streamManager, scope } = await runningSession('s2');
    await stateStore.setInterruptFlag('s2', abortErrorText('stop'));
    await stateStore.updateRunStatus('s2', 'r1', 'aborted', { error: abortErrorText('stop') });
    await stateStore.updateStatus('s2', 'failed', { error: abortErrorText('stop'), failureReason: 'aborted' });
    expect(await reopenCancelledRun(stateStore, streamManager, scope)).toBe(true);
    expect((await stateStore.readInterruptFlag('s2')).interrupted).toBe(false);

    await stateStore.setInterruptFlag('s2', 'user pressed stop');
    await stateStore.updateRunStatus('s2', 'r1', 'aborted', { error: DBOS_CANCELLED_ERROR });
    await stateStore.updateStatus('s2', 'failed', { error: DBOS_CANCELLED_ERROR, failureReason: 'aborted' });
    expect(await reopenCancelledRun(stateStore, streamManager, scope)).toBe(true);
    expect(await stateStore.readInterruptFlag('s2')).toMatchObject({ interrupted: true, reason: 'user pressed stop' });
  });

  it('leaves a run that ended otherwise (failed, completed) alone', async () => {
    const { stateStore, streamManager, scope } = await runningSession('s3');
    await stateStore.updateRunStatus('s3', 'r1', 'failed', { error: 'The tool crashed' });
    await stateStore.updateStatus('s3', 'failed', { error: 'The tool crashed' });
    expect(await reopenCancelledRun(stateStore, streamManager, scope)).toBe(false);
    expect((await stateStore.loadState('s3'))?.status).toBe('failed');
    expect((await stateStore.getRun('s3', 'r1'))?.status).toBe('failed');
  });

  it('refuses a cancelled run the session moved on from (a later run)', async () => {
    const { stateStore, streamManager, scope } = await runningSession('s4');
    await recordCancelledRun(stateStore, streamManager, scope);
    await stateStore.createRun('s4', { runId: 'r2', status: 'running', stepCount: 0, startSequence: 1, startedAt: 2, workflowId: 'w2' });
    await expect(reopenCancelledRun(stateStore, streamManager, scope)).rejects.toSatisfy((error) => NotResumableError.isInstance(error));
    expect((await stateStore.getRun('s4', 'r1'))?.status).toBe('aborted');
  });
});

describe('reopenResumedRun (the step-body entry)', () => {
  it('reads nothing for a step that is not the first live one after a replay', async () => {
    const scope: RunScope = { sessionId: 'x', runId: 'r', agentType: 'a', streamId: 'x', workflowId: 'never-bound' };
    await expect(reopenResumedRun(SEPARATE_RECORD, scope)).resolves.toBeUndefined();
  });

  it('knows the standard root runs (the runs whose cancel the workflow records)', () => {
    const root: RunScope = { sessionId: 's', runId: 'r', agentType: 'a', streamId: 's', workflowId: 'w', rootSessionId: 's' };
    expect(isStandardRootRun(root)).toBe(true);
    expect(isStandardRootRun({ ...root, rootSessionId: undefined })).toBe(true);
    expect(isStandardRootRun({ ...root, rootSessionId: 'parent' })).toBe(false);
    expect(isStandardRootRun({ ...root, turnKey: 'w#r' })).toBe(false);
  });
});
