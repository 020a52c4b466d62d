import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSubAgentTool, defineAgent, defineTool } from '../../../src/agent/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import { BufferedStreamWriter } from '../../../src/stream/buffered-stream-writer.js';
import type { StreamChunk, StreamChunkInput } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { readStream } from '../../support/read-stream.js';

// Issue 11 (stored bytes with a growing state): a step committed with its sole tool's record keeps the tool's state
// patches once, in its checkpoint; its state_patch chunk is stored as a reference that readers fill in — folded into
// its tool_end's row when that follows in the same record.

const ITEM = 'x'.repeat(1_000);
const collect = defineTool({
  name: 'collect',
  description: 'Adds an item to the state.',
  parameters: z.object({}),
  execute: async (_input, context) => {
    context.updateState((draft) => {
      const items = draft.items as string[];
      items.push(`${ITEM}-${items.length + 1}`);
    });
    return { ok: true };
  },
});
const collector = defineAgent({
  name: 'patch_reference_collector',
  systemPrompt: 'Collect.',
  tools: [collect],
  stateSchema: z.object({ items: z.array(z.string()).default([]) }),
  maxSteps: 10,
});
const child = defineAgent({
  name: 'patch_reference_child',
  systemPrompt: 'Collect twice.',
  tools: [collect],
  stateSchema: z.object({ items: z.array(z.string()).default([]) }),
  outputSchema: z.object({ done: z.boolean() }),
  maxSteps: 5,
});
const delegator = defineAgent({ name: 'patch_reference_delegator', systemPrompt: 'Delegate.', tools: [createSubAgentTool(child, z.object({}))], maxSteps: 3 });
const llm = new MockLLMAdapter((input): MockLLMResponse => {
  const step = input.step ?? 1;
  const collectAt = (step: number): MockLLMResponse => ({ type: 'tool_calls', toolCalls: [{ id: `c${step}`, name: 'collect', arguments: {} }] });
  if (input.agentType === delegator.name) {
    return step === 1 ? { type: 'tool_calls', toolCalls: [{ id: 'd1', name: `subagent__${child.name}`, arguments: {} }] } : { type: 'text', text: 'delegated' };
  }
  if (input.agentType === child.name) return step <= 2 ? collectAt(step) : { type: 'structured_output', output: { done: true } };
  return step <= 3 ? collectAt(step) : { type: 'text', text: 'done' };
});

let runtime: TestRuntime;
let pool: pg.Pool;
beforeAll(async () => {
  runtime = await startTestRuntime('state_patch_reference', llm);
  pool = new pg.Pool({ connectionString: runtime.database.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await runtime?.shutdown();
});

const readAll = (streamId: string): Promise<StreamChunk[]> => readStream(runtime.streamManager, streamId);

async function storedTexts(streamId: string): Promise<string[]> {
  const { rows } = await pool.query<{ chunk: string }>('SELECT chunk FROM __agents_stream_chunks WHERE stream_id = $1 ORDER BY sequence', [streamId]);
  return rows.map((row) => row.chunk);
}

const statePatch = (sessionId: string, patches: unknown[]): StreamChunkInput =>
  ({ type: 'state_patch', patches, agentId: sessionId, agentType: 'patch_reference_collector', step: 1, timestamp: 1 }) as StreamChunkInput;

describe('state_patch chunks of steps committed with their tool', () => {
  it('are stored as references to the step checkpoint, which keeps the patches (snapshot or delta); readers get the patches', async () => {
    const handle = await runtime.executor.execute(collector, 'Collect three.', { sessionId: 'ref-1' });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', stepCount: 4 });

    // Each state_patch rides in its tool_end's row (no row of its own), naming the checkpoint that holds its patches.
    const texts = await storedTexts('ref-1');
    const folds = texts.filter((text) => text.startsWith('{"patchesBefore":'));
    expect(folds).toEqual([1, 2, 3].map((step) => expect.stringContaining(`"patchesBefore":"${result.runId}:${step}"`)));
    for (const text of folds) expect(JSON.parse(text)).toMatchObject({ type: 'tool_end', toolName: 'collect' });
    expect(texts.filter((text) => text.includes('state_patch'))).toEqual([]);
    // The items are nowhere in the stream's rows: each is stored once, in its checkpoint.
    expect(texts.filter((text) => text.includes(ITEM))).toEqual([]);

    const read = await readAll('ref-1');
    expect(read.map((chunk) => chunk.sequence)).toEqual(read.map((_chunk, index) => index + 1));
    expect(await runtime.streamManager.getInfo('ref-1')).toMatchObject({ lastSequence: read.length, chunkCount: read.length });
    const patches = read.filter((chunk) => chunk.type === 'state_patch');
    expect(patches.map((chunk) => [chunk.step, chunk.agentId, chunk.type === 'state_patch' ? chunk.patches : undefined])).toEqual(
      [1, 2, 3].map((step) => [step, 'ref-1', [{ op: 'add', path: '/items/-', value: `${ITEM}-${step}` }]]),
    );
    // In order: tool_start, state_patch, tool_end of each step; a reader starting at a state_patch gets its tool_end next.
    for (const chunk of patches) expect(read.slice(chunk.sequence - 2, chunk.sequence + 1).map((c) => c.type)).toEqual(['tool_start', 'state_patch', 'tool_end']);
    const from = patches[1]!.sequence;
    const after = await readStream(runtime.streamManager, 'ref-1', from);
    expect(after.map((chunk) => chunk.sequence)).toEqual(read.slice(from).map((chunk) => chunk.sequence));
    const before = await readStream(runtime.streamManager, 'ref-1', from - 1);
    expect(before[0]).toEqual(patches[1]);
    // Step 1 had no base checkpoint (a snapshot that also keeps its patches); step 2 is a delta on step 1.
    const { rows } = await pool.query<{ checkpoint_id: string; snapshot: boolean; has_patches: boolean }>(
      'SELECT checkpoint_id, custom_state IS NOT NULL AS snapshot, patches IS NOT NULL AS has_patches FROM __agents_checkpoints WHERE session_id = $1 AND checkpoint_id = ANY($2) ORDER BY step_count',
      ['ref-1', [1, 2].map((step) => `${result.runId}:${step}`)],
    );
    expect(rows.map((row) => [row.snapshot, row.has_patches])).toEqual([
      [true, true],
      [false, true],
    ]);
    expect((await runtime.stateStore.loadState('ref-1'))?.customState).toEqual({ items: [1, 2, 3].map((n) => `${ITEM}-${n}`) });
  });

  it('of a sub-agent in its root’s stream refer to the sub-agent’s own checkpoints', async () => {
    const result = await (await runtime.executor.execute(delegator, 'Delegate.', { sessionId: 'ref-root' })).result();
    expect(result).toMatchObject({ status: 'completed' });
    const [ref] = await runtime.stateStore.getSubSessionRefs('ref-root');
    const childId = ref!.subSessionId;
    const stored = (await storedTexts('ref-root')).filter((text) => text.startsWith('{"patchesBefore":'));
    expect(stored).toHaveLength(2);
    for (const text of stored) expect(JSON.parse(text)).toMatchObject({ type: 'tool_end', agentId: childId, agentType: child.name });
    const patches = (await readAll('ref-root')).filter((chunk) => chunk.type === 'state_patch');
    expect(patches.map((chunk) => [chunk.agentId, chunk.step, chunk.type === 'state_patch' ? chunk.patches : undefined])).toEqual(
      [1, 2].map((step) => [childId, step, [{ op: 'add', path: '/items/-', value: `${ITEM}-${step}` }]]),
    );
  });

  it('keep their patches when written outside a step record, or when their checkpoint is not in the stream’s database', async () => {
    const writer = await runtime.streamManager.createWriter('ref-plain', 'ref-plain', 'patch_reference_collector');
    expect(writer).toBeInstanceOf(BufferedStreamWriter);
    const patches = [{ op: 'replace', path: '/count', value: 2 }];
    // A plain flush (no step record): the chunk is stored whole, whatever the runtime said.
    await writer.write(statePatch('ref-plain', patches), { patchesIn: 'run-x:1' });
    await writer.flush();
    expect(await storedTexts('ref-plain')).toEqual([expect.stringMatching(/^\{"type":"state_patch","patches":/)]);

    // Handed to a transaction: a reference; no checkpoint of that id exists, so a reader gets no patches.
    await writer.write(statePatch('ref-plain', patches), { patchesIn: 'run-x:2' });
    const handover = await runtime.streamManager.stepRecords.handOver(writer);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await handover!.within(client);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await runtime.streamManager.endStream('ref-plain');
    expect((await storedTexts('ref-plain'))[1]).toBe('{"patchesIn":"run-x:2","type":"state_patch","timestamp":1}');
    const read = await readAll('ref-plain');
    expect(read.map((chunk) => (chunk.type === 'state_patch' ? chunk.patches : chunk.type))).toEqual([patches, []]);
    await writer.close();
  });

  it('folded into the next chunk’s row are stored once when the transaction is retried, and whole when it is abandoned', async () => {
    const writer = (await runtime.streamManager.createWriter('ref-fold', 'ref-fold', 'patch_reference_collector')) as BufferedStreamWriter;
    const patches = [{ op: 'replace', path: '/count', value: 3 }];
    const toolEnd = { type: 'tool_end', toolCallId: 'c1', toolName: 'collect', result: { ok: true }, agentId: 'ref-fold', agentType: 'patch_reference_collector', step: 1, timestamp: 1 } as StreamChunkInput;
    const inTransaction = async (handover: { within: (client: pg.PoolClient) => Promise<void> }, end: 'COMMIT' | 'ROLLBACK'): Promise<void> => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await handover.within(client);
        await client.query(end);
      } finally {
        client.release();
      }
    };
    await writer.write(statePatch('ref-fold', patches), { patchesIn: 'run-y:1' });
    await writer.write(toolEnd, { key: 'run-y:1:tool_end' });
    const handover = (await runtime.streamManager.stepRecords.handOver(writer))!;
    await inTransaction(handover, 'COMMIT');
    await inTransaction(handover, 'COMMIT'); // a retry that did commit the first time: nothing more
    expect(await storedTexts('ref-fold')).toEqual([expect.stringMatching(/^\{"patchesBefore":"run-y:1","type":"tool_end"/)]);
    expect(await runtime.streamManager.getInfo('ref-fold')).toMatchObject({ lastSequence: 2, chunkCount: 2 });

    // Abandoned: back to the writer, flushed on their own, each chunk whole in a row of its own.
    await writer.write(statePatch('ref-fold', patches), { patchesIn: 'run-y:2' });
    await writer.write({ ...toolEnd, toolCallId: 'c2' } as StreamChunkInput);
    const abandoned = (await runtime.streamManager.stepRecords.handOver(writer))!;
    await inTransaction(abandoned, 'ROLLBACK');
    abandoned.abandoned();
    await writer.flush();
    await runtime.streamManager.endStream('ref-fold');
    const texts = await storedTexts('ref-fold');
    expect(texts.slice(1)).toEqual([expect.stringMatching(/^\{"type":"state_patch","patches":/), expect.stringMatching(/^\{"type":"tool_end"/)]);
    const read = await readAll('ref-fold');
    expect(read.map((chunk) => [chunk.sequence, chunk.type])).toEqual([
      [1, 'state_patch'],
      [2, 'tool_end'],
      [3, 'state_patch'],
      [4, 'tool_end'],
    ]);
    // No checkpoint run-y:1 exists here: the folded state_patch reads with no patches; the whole one keeps its own.
    expect(read.filter((chunk) => chunk.type === 'state_patch').map((chunk) => (chunk.type === 'state_patch' ? chunk.patches : undefined))).toEqual([[], patches]);
    expect(await runtime.streamManager.pruneChunks('ref-fold')).toBe(4);
    await writer.close();
  });
});
