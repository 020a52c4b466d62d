import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SystemDatabase } from '../../../src/journal/fused/record-row.js';
import { recordWithWrites } from '../../../src/journal/fused/record-transaction.js';
import type { RecordOutcome, RecordWrite } from '../../../src/journal/step-record.js';
import type { StepCommitReport } from '../../../src/types/step-commit-report.js';
import type { Message } from '../../../src/types/message.js';
import type { TestRuntime } from '../../support/runtime.js';
import { startRecordKit, type RecordKit } from './record-kit.js';

// A step commit riding in its tool step's record: a session this process committed last is committed next without
// reading it (its session update guarded by the row's xmin); anything written since makes it read, losing nothing.
let kit: RecordKit;
let runtime: TestRuntime;
let database: SystemDatabase;
const workflowID = 'optimistic-commit-workflow';
let functionID = 0;

beforeAll(async () => {
  kit = await startRecordKit('optimistic_commit', workflowID);
  ({ runtime, database } = kit);
});
afterAll(async () => {
  await kit?.close();
});

interface Committed {
  report: StepCommitReport;
  /** Statements the commit read with (0: it wrote optimistically, in the record's statement only). */
  reads: number;
}

/** Commit step `step` of run `r1` (one assistant message, one tool result, `items` += item) the way a tool step does. */
async function commitStep(sessionId: string, step: number, item: string): Promise<Committed> {
  const store = runtime.stateStore;
  const messages: Message[] = [
    { role: 'assistant', content: '', toolCalls: [{ id: `call-${step}`, name: 'add', arguments: {} }] },
    { role: 'tool', toolCallId: `call-${step}`, toolName: 'add', content: { ok: true } },
  ] as Message[];
  const meta = { checkpointId: `r1:${step}`, runId: 'r1', stepCount: step };
  const patches = [{ op: 'add' as const, path: '/items/-', value: item }];
  let reads = 0;
  let result: Awaited<ReturnType<typeof store.stepRecords.commitStepOn>> | undefined;
  const write = {
    within: async (connection: Parameters<RecordWrite['within']>[0]) => {
      reads = 0;
      const counting = { ...connection, query: (text: string, values?: unknown[]) => ((reads += 1), connection.query(text, values)) };
      result = await store.stepRecords.commitStepOn(counting as typeof connection, sessionId, { stepCount: step }, messages, meta, { patches: [{ stagingKey: `call-${step}`, patches }] });
    },
    committed: (outcome: RecordOutcome) => result?.onCommitted?.(outcome),
  };
  const step_ = { workflowID, functionID: (functionID += 1), name: 'ExecuteToolStep', startedAt: 1, endedAt: 2, output: null, serialization: null };
  write.committed(await recordWithWrites(database, [write], step_)); // as runLeanStep does
  return { report: result!.report, reads };
}

const itemsOf = async (sessionId: string): Promise<unknown> => ((await runtime.stateStore.loadState(sessionId))?.customState as { items: string[] }).items;
const roles = async (sessionId: string): Promise<string[]> => (await runtime.stateStore.getMessages(sessionId, { limit: 100 })).messages.map((message) => `${message.role}`);

describe('optimistic step commits', () => {
  it('a session this process committed last is committed next without a read, and reads back exactly', async () => {
    await runtime.stateStore.createSession('opt-1', { agentType: 'a', customState: { items: [] } });
    expect((await commitStep('opt-1', 1, 'a')).reads).toBeGreaterThan(0); // nothing known yet: reads under the lock
    expect((await commitStep('opt-1', 2, 'b')).reads).toBe(0);
    const third = await commitStep('opt-1', 3, 'c');
    expect(third.reads).toBe(0);
    expect(third.report.messageCount).toBe(6);
    expect(await itemsOf('opt-1')).toEqual(['a', 'b', 'c']);
    expect((await runtime.stateStore.getLatestCheckpoint('opt-1'))?.customState).toEqual({ items: ['a', 'b', 'c'] });
    expect(await runtime.stateStore.getMessageCount('opt-1')).toBe(6);
  });

  it('a message appended by someone else since: the guard fails, the commit reads and places its messages after it', async () => {
    await runtime.stateStore.createSession('opt-2', { agentType: 'a', customState: { items: [] } });
    await commitStep('opt-2', 1, 'a');
    await runtime.stateStore.appendMessages('opt-2', [{ role: 'user', content: 'meanwhile' }]);
    const second = await commitStep('opt-2', 2, 'b');
    expect(second.reads).toBeGreaterThan(0);
    expect(second.report.messageCount).toBe(5);
    expect(await roles('opt-2')).toEqual(['assistant', 'tool', 'user', 'assistant', 'tool']);
    expect(await itemsOf('opt-2')).toEqual(['a', 'b']);
    expect((await commitStep('opt-2', 3, 'c')).reads).toBe(0); // known again after a commit that read
  });

  it("a run's first step: the step's session read primes its commit (no locked read) unless the row holds its own state or an interrupt", async () => {
    await runtime.stateStore.createSession('opt-7', { agentType: 'a', customState: { items: [] } });
    await runtime.stateStore.stepRecords.loadStateForStep('opt-7'); // a new session: no checkpoint yet, the commit writes a snapshot
    expect((await commitStep('opt-7', 1, 'a')).reads).toBe(0);
    await runtime.stateStore.updateStatus('opt-7', 'active'); // drops what the commit left, as a run's finish does
    expect((await runtime.stateStore.stepRecords.loadStateForStep('opt-7'))?.customState).toEqual({ items: ['a'] });
    expect((await commitStep('opt-7', 2, 'b')).reads).toBe(0);
    expect(await itemsOf('opt-7')).toEqual(['a', 'b']);
    // A state written into the row (not the checkpoint): a delta on the checkpoint would be wrong, so no priming.
    await runtime.stateStore.saveState('opt-7', { customState: { items: ['replaced'] } });
    await runtime.stateStore.stepRecords.loadStateForStep('opt-7');
    expect((await commitStep('opt-7', 3, 'c')).reads).toBeGreaterThan(0);
    expect(await itemsOf('opt-7')).toEqual(['replaced', 'c']);
    await runtime.stateStore.updateStatus('opt-7', 'active');
    await runtime.stateStore.setInterruptFlag('opt-7', 'stop');
    await runtime.stateStore.stepRecords.loadStateForStep('opt-7');
    const fourth = await commitStep('opt-7', 4, 'd');
    expect(fourth.reads).toBeGreaterThan(0);
    expect(fourth.report.interruptRequested).toBe(true);
    expect((await runtime.stateStore.getLatestCheckpoint('opt-7'))?.customState).toEqual({ items: ['replaced', 'c', 'd'] });
  });

  it('the interrupt flag set since: the commit reads it and reports it', async () => {
    await runtime.stateStore.createSession('opt-3', { agentType: 'a', customState: { items: [] } });
    await commitStep('opt-3', 1, 'a');
    await runtime.stateStore.setInterruptFlag('opt-3', 'stop');
    const second = await commitStep('opt-3', 2, 'b');
    expect(second.reads).toBeGreaterThan(0);
    expect(second.report.interruptRequested).toBe(true);
    expect(await itemsOf('opt-3')).toEqual(['a', 'b']);
  });

  it('a state write since (another version): the commit reads, and starts from that state', async () => {
    await runtime.stateStore.createSession('opt-4', { agentType: 'a', customState: { items: [] } });
    await commitStep('opt-4', 1, 'a');
    await runtime.stateStore.saveState('opt-4', { customState: { items: ['replaced'] } });
    expect((await commitStep('opt-4', 2, 'b')).reads).toBeGreaterThan(0);
    expect(await itemsOf('opt-4')).toEqual(['replaced', 'b']);
  });

  it('rows staged for the step since: the commit reads and applies them with its own patches', async () => {
    await runtime.stateStore.createSession('opt-5', { agentType: 'a', customState: { items: [] } });
    await commitStep('opt-5', 1, 'a');
    await runtime.stateStore.stageChanges('opt-5', { stepId: 'r1:2', stagingKey: 'other-call', patches: [{ op: 'add', path: '/items/-', value: 'staged' }] });
    expect((await commitStep('opt-5', 2, 'b')).reads).toBeGreaterThan(0);
    expect(await itemsOf('opt-5')).toEqual(['a', 'staged', 'b']);
    expect(await runtime.stateStore.hasStagedChanges('opt-5', 'r1:2')).toBe(false);
  });
});
