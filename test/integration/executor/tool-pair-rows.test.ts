import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { activeJournal } from '../../../src/journal/journal.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import { FOLDED_START_PREFIX } from '../../../src/stream/postgres/stored-chunk.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { readStream } from '../../support/read-stream.js';

// Issue 21 (disk per agent step): a tool step recorded in one transaction with its chunks (the fused journal) stores
// its call's tool_start in the tool_end's row. The public journal's step writes come before DBOS's row, so a crash
// between them runs the step again and writes its chunks again: there each chunk keeps a row of its own (its key).

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks something up.',
  parameters: z.object({ q: z.string() }),
  execute: async ({ q }) => ({ found: q.toUpperCase() }),
});
const agent = defineAgent({ name: 'tool_pair_rows', systemPrompt: 'Look up.', tools: [lookup], maxSteps: 5 });
const llm = new MockLLMAdapter((input): MockLLMResponse => {
  const step = input.step ?? 1;
  if (step <= 2) return { type: 'tool_calls', toolCalls: [{ id: `c${step}`, name: 'lookup', arguments: { q: `q${step}` } }] };
  return { type: 'text', text: 'found' };
});

let runtime: TestRuntime;
let pool: pg.Pool;
beforeAll(async () => {
  runtime = await startTestRuntime('tool_pair_rows', llm);
  pool = new pg.Pool({ connectionString: runtime.database.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await runtime?.shutdown();
});

async function storedRows(streamId: string): Promise<{ sequence: number; chunk: string }[]> {
  const { rows } = await pool.query<{ sequence: string; chunk: string }>('SELECT sequence, chunk FROM __agents_stream_chunks WHERE stream_id = $1 ORDER BY sequence', [
    streamId,
  ]);
  return rows.map((row) => ({ sequence: Number(row.sequence), chunk: row.chunk }));
}

const toolChunks = (chunks: readonly StreamChunk[]) => chunks.filter((chunk) => chunk.type === 'tool_start' || chunk.type === 'tool_end');

describe('a tool call’s chunks', () => {
  it('read back as tool_start then tool_end at consecutive sequences; one row for both on the fused journal', async () => {
    const result = await (await runtime.executor.execute(agent, 'Look up twice.', { sessionId: 'pairs-1' })).result();
    expect(result).toMatchObject({ status: 'completed', output: 'found' });

    const read = await readStream(runtime.streamManager, 'pairs-1');
    expect(read.map((chunk) => chunk.sequence)).toEqual(read.map((_chunk, index) => index + 1));
    expect(toolChunks(read).map((chunk) => [chunk.type, chunk.step, 'toolCallId' in chunk ? chunk.toolCallId : undefined])).toEqual([
      ['tool_start', 1, 'c1'],
      ['tool_end', 1, 'c1'],
      ['tool_start', 2, 'c2'],
      ['tool_end', 2, 'c2'],
    ]);
    const [start, end] = toolChunks(read);
    expect(start).toMatchObject({ agentId: 'pairs-1', agentType: agent.name, toolName: 'lookup', arguments: { q: 'q1' } });
    expect(end).toMatchObject({ agentId: 'pairs-1', agentType: agent.name, toolName: 'lookup', result: { found: 'Q1' }, sequence: start!.sequence + 1 });
    expect(await runtime.streamManager.getInfo('pairs-1')).toMatchObject({ lastSequence: read.length, chunkCount: read.length });

    const rows = await storedRows('pairs-1');
    const pairs = rows.filter((row) => row.chunk.startsWith(FOLDED_START_PREFIX));
    if (activeJournal() === 'fused') {
      // One row per call, at its tool_end's sequence; nothing else holds a tool_start.
      expect(pairs.map((row) => row.sequence)).toEqual(toolChunks(read).filter((chunk) => chunk.type === 'tool_end').map((chunk) => chunk.sequence));
      expect(rows.filter((row) => row.chunk.includes('"tool_start"'))).toEqual([]);
      expect(rows).toHaveLength(read.length - 2);
    } else {
      expect(pairs).toEqual([]);
      expect(rows).toHaveLength(read.length);
    }

    // A reader resuming right after a tool_start (its row holds both) gets the tool_end next, and nothing twice.
    const after = await readStream(runtime.streamManager, 'pairs-1', start!.sequence);
    expect(after.map((chunk) => chunk.sequence)).toEqual(read.slice(start!.sequence).map((chunk) => chunk.sequence));
    expect(after[0]).toEqual(end);
  });
});
