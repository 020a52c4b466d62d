/**
 * SIGKILL of a root while its second LLM step streams, after its ephemeral child finished: the child wrote its
 * chunks (its own steps 1 and 2) into the root's stream. The recovered root's first LLM step cleans up its own
 * partial chunks of step 2; the child's chunks must all stay, each exactly once, and the root's answer must be
 * in the stream exactly once.
 */
import { describe, expect, it } from 'vitest';
import { FOLDED_PATCH_PREFIX } from '../../../src/stream/postgres/stored-chunk.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { childOf, DRILL_SCENARIOS, STREAMED_ANSWER_DELTAS } from '../support/drill-scenarios.js';
import { useDrill } from '../support/drill.js';
import { killAndRecover, startDoomedRun, waitForSignal } from '../support/drill-flow.js';
import { readStreamWithResets } from '../support/stream-view.js';

const ROOT = 'sub-stream-drill';
const CHILD = childOf(ROOT);

const env = useDrill('crash_sub_stream', {
  sessions: [
    [ROOT, DRILL_SCENARIOS.delegateThenStream, { crash: true }],
    [CHILD, DRILL_SCENARIOS.childLookup],
  ],
});

/**
 * The stored chunks of one agent in the root's stream, in sequence order, as `sequence:step:type`. A row that carries
 * a folded state_patch (`{"patchesBefore":…}`) holds that chunk at the sequence before its own.
 */
async function storedChunksOf(agentId: string): Promise<string[]> {
  const { rows } = await env.pool.query<{ sequence: string; step: number; type: string; folded: boolean }>(
    `SELECT sequence, step, chunk::jsonb->>'type' AS type, starts_with(chunk, $3) AS folded
     FROM __agents_stream_chunks WHERE stream_id = $1 AND COALESCE(chunk::jsonb->>'agentId', stream_id) = $2 ORDER BY sequence`,
    [ROOT, agentId, FOLDED_PATCH_PREFIX],
  );
  return rows.flatMap((row) => [
    ...(row.folded ? [`${Number(row.sequence) - 1}:${row.step}:state_patch`] : []),
    `${row.sequence}:${row.step}:${row.type}`,
  ]);
}

const textOf = (chunks: StreamChunk[], step: number): string =>
  chunks
    .filter((chunk) => chunk.agentId === ROOT && chunk.step === step && chunk.type === 'text_delta')
    .map((chunk) => (chunk as StreamChunk & { delta: string }).delta)
    .join('');

describe('crash drill: SIGKILL of a root after its child wrote into the shared stream', () => {
  it("keeps every child chunk exactly once and shows the root's retried step once", async () => {
    const doomed = await startDoomedRun(env, 'crash-sub-stream', ROOT, []);
    await waitForSignal(doomed.worker, "the root's step 2 streaming", async () => (await storedChunksOf(ROOT)).some((chunk) => chunk.endsWith(':2:text_delta')));
    await doomed.worker.kill();
    const childBefore = await storedChunksOf(CHILD);
    // The child's chunks of its own step 2 carry a step above the root's step 1: a step-number cleanup would drop them.
    expect(childBefore.filter((chunk) => chunk.split(':')[1] === '2').length).toBeGreaterThan(0);
    expect(childBefore.filter((chunk) => chunk.split(':')[1] === '1').length).toBeGreaterThan(0);

    const { result } = await killAndRecover(env, doomed);
    expect(result).toMatchObject({ sessionId: ROOT, status: 'completed', output: STREAMED_ANSWER_DELTAS.join('') });

    // Every child chunk is still stored, exactly once, where it was.
    expect(await storedChunksOf(CHILD)).toEqual(childBefore);
    const { raw, visible } = await readStreamWithResets(env.streamManager, ROOT, 10_000);
    expect(raw.filter((chunk) => chunk.agentId === CHILD).map((chunk) => `${chunk.sequence}:${chunk.step}:${chunk.type}`)).toEqual(childBefore);
    // The root's killed attempt of step 2 was cleaned up: its answer is stored (and shown) exactly once.
    expect(textOf(raw, 2)).toBe(STREAMED_ANSWER_DELTAS.join(''));
    expect(textOf(visible, 2)).toBe(STREAMED_ANSWER_DELTAS.join(''));
    expect(env.llm.countsByStep(ROOT)).toEqual([1, 2]);
    expect(env.llm.countsByStep(CHILD)).toEqual([1, 1]);
    expect(raw.filter((chunk) => chunk.type === 'subagent_end')).toHaveLength(1);
  }, 120_000);
});
