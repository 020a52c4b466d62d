/**
 * A worker dies while a queued run's FIRST model call streams (its text partly stored by the stream writer's own
 * flushes, before the step's record). A second fleet member takes the dead one's runs over and runs the step again:
 * the stream the client reads shows the answer once — the dead attempt's partial text is reset (`step_reset` of step
 * 1) — and the model was called once more for that step only.
 */
import { describe, expect, it } from 'vitest';
import { DRILL_TIMEOUTS } from '../support/drill-flow.js';
import { chunkRowCount, waitUntil } from '../support/durable-probes.js';
import { readStreamWithResets, textOfStep } from '../support/stream-view.js';
import { createLedgerFleetAgent } from '../worker/fleet-agent.js';
import { answerOf, enqueueSessions, ledgerScenario, spawnMember, useFleetDrill, type MemberOptions } from './fleet-drill.js';

const SESSION = 'first-step-1';
/** The answer streams word by word, 150 ms apart: the writer's timer stores its first words long before the record. */
const SCENARIO = { toolSteps: 0, chunkDelayMs: 150 };
const MEMBER: MemberOptions = { sessions: [SESSION], workerConcurrency: 2, toolDelayMs: 0, deadAfterMs: 1_500, sweepIntervalMs: 250 };
const STREAM_READ_TIMEOUT_MS = 30_000;

const { env, api } = useFleetDrill('crash_fleet_first', [[SESSION, ledgerScenario(SESSION, SCENARIO)]]);

describe('a worker killed during a queued run’s first model call', () => {
  it('leaves no partial text in the stream: the survivor resets step 1 and streams the answer once', async () => {
    const victim = spawnMember(env, 'fleet-worker-1', MEMBER);
    await victim.waitForEvent('launched', DRILL_TIMEOUTS.start);
    const [run] = await enqueueSessions(api(), createLedgerFleetAgent(env.pool), [SESSION]);
    if (run === undefined) throw new Error('no run enqueued');

    const partlyStored = async (): Promise<boolean> => (await chunkRowCount(env.pool, SESSION, 'text_delta', 1)) >= 1;
    await waitUntil('a text delta of step 1 stored', DRILL_TIMEOUTS.signal, partlyStored, () => victim.describe());
    await victim.kill();
    // Killed mid-stream: part of the answer is in the stream, nothing of the step is recorded.
    expect(env.llm.countsByStep(SESSION)).toEqual([1]);

    const survivor = spawnMember(env, 'fleet-worker-2', MEMBER);
    const result = await run.handle.result();
    expect(result).toMatchObject({ status: 'completed', output: answerOf(SESSION), stepCount: 1 });
    expect(await survivor.waitForExit(DRILL_TIMEOUTS.exit)).toBe(0);
    expect(env.llm.countsByStep(SESSION)).toEqual([2]);

    const view = await readStreamWithResets(env.streamManager, SESSION, STREAM_READ_TIMEOUT_MS);
    expect(textOfStep(view.visible, 1)).toBe(answerOf(SESSION));
    expect(view.raw.filter((chunk) => chunk.type === 'step_reset' && chunk.step === 1)).toHaveLength(1);
    expect(view.visible.filter((chunk) => chunk.type === 'output')).toMatchObject([{ output: answerOf(SESSION) }]);
  }, 120_000);
});
