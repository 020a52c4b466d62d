import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { runJournaledStep } from '../../../src/journal/journal.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { createGate, type Gate } from '../run-control/run-control-kit.js';

// A step's deferred writes (its stream chunks) belong to its outcome: when the step is not this execution's to
// record (its workflow was cancelled, or another execution owns it), they are dropped — not flushed later into a
// stream that a retry may have ended, reactivated and be writing.
// Deferred writes exist on the fused journal only (a public step writes on its own): the executor pins it.
let gate: Gate = createGate();
const events: string[] = [];
let ended: () => void = () => undefined;

class HeldStepWorkflows {
  @DBOS.workflow({ name: 'test.heldLeanStep' })
  static async run(outcome: 'returns' | 'throws'): Promise<string> {
    try {
      return await runJournaledStep('HeldStep', async (record) => {
        record.defer({
          within: async (connection) => {
            events.push('written');
            await connection.query('SELECT 1');
          },
          committed: () => void events.push('committed'),
          abandoned: () => void events.push('handed back'),
        });
        await gate.pass();
        if (outcome === 'throws') throw new Error('the step failed');
        return 'done';
      });
    } finally {
      ended();
    }
  }
}

let runtime: TestRuntime;
beforeAll(async () => {
  void HeldStepWorkflows;
  runtime = await startTestRuntime('lean_step_refusal', new MockLLMAdapter(() => ({ type: 'text', text: 'unused' })), { journal: 'fused' });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe("a lean step's deferred writes", () => {
  it.each([
    { case: 'cancelled while it ran, returning: the refused record hands nothing back', outcome: 'returns', cancel: true, expected: [] },
    { case: 'cancelled while it ran, failing: nothing is written on its own', outcome: 'throws', cancel: true, expected: [] },
    { case: 'failing on its own: its writes are still stored, alone', outcome: 'throws', cancel: false, expected: ['written', 'committed'] },
    { case: 'returning: its writes commit with its record', outcome: 'returns', cancel: false, expected: ['written', 'committed'] },
  ] as const)('$case', async ({ outcome, cancel, expected }) => {
    gate = createGate();
    events.length = 0;
    const finished = new Promise<void>((resolve) => (ended = resolve));
    const handle = await DBOS.startWorkflow(HeldStepWorkflows).run(outcome);
    await gate.entered;
    if (cancel) await DBOS.cancelWorkflow(handle.workflowID);
    gate.open();
    await finished;
    await new Promise((resolve) => setTimeout(resolve, 50)); // a hand-back would schedule its flush now
    // A refused record transaction may have run `within` before the refusal rolled it back: only what survives counts.
    expect(events.filter((event) => event !== 'written' || !cancel)).toEqual(expected);
  });
});
