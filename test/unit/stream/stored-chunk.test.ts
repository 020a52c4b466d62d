import { describe, expect, it } from 'vitest';
import type { KeyedChunk } from '../../../src/stream/chunk-identity.js';
import { chunkFromStored, chunksFromStored, FOLDED_PATCH_PREFIX, FOLDED_START_PREFIX, PATCHES_REFERENCE_PREFIX, storedChunkText, storedRows } from '../../../src/stream/postgres/stored-chunk.js';
import type { StreamChunkInput } from '../../../src/types/stream.js';

const rootDelta: StreamChunkInput = { type: 'text_delta', delta: 'Hi', agentId: 's1', agentType: 'a', step: 3, timestamp: 5 };
const wholePatch: StreamChunkInput = { type: 'state_patch', patches: [], agentId: 's1', agentType: 'a', step: 1, timestamp: 1 };
const childEnd: StreamChunkInput = { type: 'tool_end', toolCallId: 'c1', toolName: 'lookup', result: { ok: true }, agentId: 's1-sub-c9', agentType: 'child', step: 1, timestamp: 6 };

describe('stored chunks (Postgres stream manager)', () => {
  it.each([
    ['the root agent: agentId is the stream id, left out', rootDelta, '{"type":"text_delta","delta":"Hi","agentType":"a","timestamp":5}'],
    ['a sub-agent in the root stream keeps its agentId', childEnd, '{"type":"tool_end","toolCallId":"c1","toolName":"lookup","result":{"ok":true},"agentId":"s1-sub-c9","agentType":"child","timestamp":6}'],
  ])('%s; step and sequence are columns', (_case, chunk, text) => {
    expect(storedChunkText({ ...chunk, sequence: 9 } as unknown as StreamChunkInput, 's1')).toBe(text);
    expect(chunkFromStored(text, 's1', chunk.step, 9)).toEqual({ ...chunk, sequence: 9 });
  });

  it('stores a state_patch chunk given a checkpoint as a reference (first member), read back with that checkpoint’s patches', () => {
    const patches = [{ op: 'add', path: '/items/-', value: 'a' }];
    const chunk = { type: 'state_patch', patches, agentId: 's1-sub-c9', agentType: 'child', step: 2, timestamp: 7 } as StreamChunkInput;
    const text = storedChunkText(chunk, 's1', 'run-1:2');
    expect(text).toBe('{"patchesIn":"run-1:2","type":"state_patch","agentId":"s1-sub-c9","agentType":"child","timestamp":7}');
    expect(text.startsWith(PATCHES_REFERENCE_PREFIX)).toBe(true);
    expect(chunkFromStored(text, 's1', 2, 11, JSON.stringify(patches))).toEqual({ ...chunk, sequence: 11 });
    // Its checkpoint gone (the session deleted): no patches.
    expect(chunkFromStored(text, 's1', 2, 11, null)).toEqual({ ...chunk, patches: [], sequence: 11 });
  });

  it.each([
    ['another chunk type given a checkpoint', rootDelta, 'run-1:3'],
    ['a state_patch chunk without one', wholePatch, undefined],
  ])('stores %s whole', (_case, chunk, patchesIn) => {
    const text = storedChunkText(chunk, 's1', patchesIn);
    expect(text.startsWith(PATCHES_REFERENCE_PREFIX)).toBe(false);
    expect(chunkFromStored(text, 's1', chunk.step, 1, null)).toEqual({ ...chunk, sequence: 1 });
  });

  it('reads a row stored before migration 011 (every field, jsonb rendering) as it was', () => {
    const legacy = '{"step": 2, "type": "text_delta", "delta": "x", "agentId": "other", "agentType": "a", "timestamp": 1}';
    expect(chunkFromStored(legacy, 's1', 2, 4)).toEqual({ type: 'text_delta', delta: 'x', agentId: 'other', agentType: 'a', step: 2, timestamp: 1, sequence: 4 });
  });

  it('keeps `type` first for a chunk whose own members would read as a reference or a fold', () => {
    const odd = { patchesBefore: 'x', agentId: 's1', type: 'text_delta', delta: 'd', agentType: 'a', step: 1, timestamp: 2 } as unknown as StreamChunkInput;
    const text = storedChunkText(odd, 's1');
    expect(text.startsWith('{"type":"text_delta"')).toBe(true);
    expect(chunksFromStored(text, 's1', 1, 3)).toEqual([{ ...odd, sequence: 3 }]);
  });
});

describe('stored rows: a state_patch folded into the next chunk’s row', () => {
  const patches = [{ op: 'add', path: '/items/-', value: 'a' }];
  const patch = (overrides: Record<string, unknown> = {}): StreamChunkInput =>
    ({ type: 'state_patch', patches, agentId: 's1', agentType: 'a', step: 2, timestamp: 7, ...overrides }) as StreamChunkInput;
  const end = (overrides: Record<string, unknown> = {}): StreamChunkInput =>
    ({ type: 'tool_end', toolCallId: 'c1', toolName: 't', result: { ok: true }, agentId: 's1', agentType: 'a', step: 2, timestamp: 7, ...overrides });
  const keyed = (chunk: StreamChunkInput, key: string, patchesIn?: string): KeyedChunk => ({ key, chunk, ...(patchesIn === undefined ? {} : { patchesIn }) });

  it('takes one row of two sequences, keeps the next chunk’s key, and reads back both chunks (patchedAt only when the times differ)', () => {
    for (const [timestamp, text] of [
      [7, '{"patchesBefore":"run-1:2","type":"tool_end","toolCallId":"c1","toolName":"t","result":{"ok":true},"agentType":"a","timestamp":7}'],
      [6, '{"patchesBefore":"run-1:2","patchedAt":6,"type":"tool_end","toolCallId":"c1","toolName":"t","result":{"ok":true},"agentType":"a","timestamp":7}'],
    ] as const) {
      const rows = storedRows([keyed(end({ type: 'tool_start', arguments: {} }), 'k/start'), keyed(patch({ timestamp }), 'w/x/1', 'run-1:2'), keyed(end(), 'k/end')], 's1', { withCheckpoint: true });
      expect(rows).toMatchObject({ keys: ['k/start', 'k/end'], steps: [2, 2], widths: [1, 2] });
      expect(rows.texts[1]).toBe(text);
      expect(text.startsWith(FOLDED_PATCH_PREFIX)).toBe(true);
      expect(chunksFromStored(text, 's1', 2, 9, JSON.stringify(patches))).toEqual([
        { ...patch({ timestamp }), sequence: 8 },
        { ...end(), sequence: 9 },
      ]);
    }
    // Its checkpoint gone: the state_patch reads with no patches.
    const [gone] = chunksFromStored(storedRows([keyed(patch(), 'w/x/1', 'run-1:2'), keyed(end(), 'k/end')], 's1', { withCheckpoint: true }).texts[0]!, 's1', 2, 9, null);
    expect(gone).toEqual({ ...patch(), patches: [], sequence: 8 });
  });

  it.each([
    ['outside the checkpoint’s transaction', [keyed(patch(), 'w/x/1', 'run-1:2'), keyed(end(), 'k/end')], false, [1, 1], '{"type":"state_patch"'],
    ['without a checkpoint', [keyed(patch(), 'w/x/1'), keyed(end(), 'k/end')], true, [1, 1], '{"type":"state_patch"'],
    ['last of its batch', [keyed(patch(), 'w/x/1', 'run-1:2')], true, [1], PATCHES_REFERENCE_PREFIX],
    ['with a caller key (it must stay findable)', [keyed(patch(), 'k/patch', 'run-1:2'), keyed(end(), 'k/end')], true, [1, 1], PATCHES_REFERENCE_PREFIX],
    ['before another agent’s chunk', [keyed(patch(), 'w/x/1', 'run-1:2'), keyed(end({ agentId: 's1-sub' }), 'k/end')], true, [1, 1], PATCHES_REFERENCE_PREFIX],
    ['before another step’s chunk', [keyed(patch(), 'w/x/1', 'run-1:2'), keyed(end({ step: 3 }), 'k/end')], true, [1, 1], PATCHES_REFERENCE_PREFIX],
    ['before another state_patch', [keyed(patch(), 'w/x/1', 'run-1:2'), keyed(patch(), 'w/x/2', 'run-1:2')], true, [1, 1], PATCHES_REFERENCE_PREFIX],
    ['with members of its own', [keyed(patch({ note: 1 }), 'w/x/1', 'run-1:2'), keyed(end(), 'k/end')], true, [1, 1], PATCHES_REFERENCE_PREFIX],
  ] as const)('is not folded %s', (_case, chunks, withCheckpoint, widths, firstPrefix) => {
    const rows = storedRows(chunks, 's1', { withCheckpoint });
    expect(rows.widths).toEqual(widths);
    expect(rows.keys).toEqual(chunks.map((chunk) => chunk.key));
    expect(rows.texts[0]!.startsWith(firstPrefix)).toBe(true);
  });

  it('leaves out the writer’s agent type (the append puts it back unless the stream records it), and marks those rows', () => {
    const rows = storedRows([keyed(end({ type: 'tool_start', arguments: {} }), 'k/start'), keyed(patch(), 'w/x/1', 'run-1:2'), keyed(end(), 'k/end'), keyed(end({ agentType: 'b' }), 'k/b')], 's1', { withCheckpoint: true }, 'a');
    expect(rows.elided).toEqual([true, true, false]);
    expect(rows.texts).toEqual([
      '{"type":"tool_start","toolCallId":"c1","toolName":"t","result":{"ok":true},"timestamp":7,"arguments":{}}',
      '{"patchesBefore":"run-1:2","type":"tool_end","toolCallId":"c1","toolName":"t","result":{"ok":true},"timestamp":7}',
      '{"type":"tool_end","toolCallId":"c1","toolName":"t","result":{"ok":true},"agentType":"b","timestamp":7}',
    ]);
    // Read back with the stream's type: both chunks of the fold get it; a stored type wins.
    expect(chunksFromStored(rows.texts[1]!, 's1', 2, 9, '[]', 'a')).toEqual([
      { ...patch(), patches: [], sequence: 8 },
      { ...end(), sequence: 9 },
    ]);
    expect(chunksFromStored(rows.texts[2]!, 's1', 2, 10, null, 'a')).toEqual([{ ...end({ agentType: 'b' }), sequence: 10 }]);
    expect(chunkFromStored('{"type":"text_delta","delta":"Hi","timestamp":5}', 's1', 3, 4, null, 'a')).toEqual({ ...rootDelta, sequence: 4 });
  });
});

describe('stored rows: a call’s tool_start folded into its tool_end’s row (pairsTools)', () => {
  const start = (overrides: Record<string, unknown> = {}): StreamChunkInput =>
    ({ type: 'tool_start', toolCallId: 'c1', toolName: 't', arguments: { q: 'x' }, agentId: 's1', agentType: 'a', step: 2, timestamp: 6, ...overrides });
  const end = (overrides: Record<string, unknown> = {}): StreamChunkInput =>
    ({ type: 'tool_end', toolCallId: 'c1', toolName: 't', result: { ok: true }, agentId: 's1', agentType: 'a', step: 2, timestamp: 7, ...overrides });
  const keyed = (chunk: StreamChunkInput, key: string): KeyedChunk => ({ key, chunk });
  const pairs = { withCheckpoint: true, pairsTools: true };

  it('takes one row of two sequences keyed by the tool_end, and reads back both chunks (startedAt only when the times differ)', () => {
    for (const [timestamp, text] of [
      [7, '{"startArguments":{"q":"x"},"type":"tool_end","toolCallId":"c1","toolName":"t","result":{"ok":true},"timestamp":7}'],
      [6, '{"startArguments":{"q":"x"},"startedAt":6,"type":"tool_end","toolCallId":"c1","toolName":"t","result":{"ok":true},"timestamp":7}'],
    ] as const) {
      const rows = storedRows([keyed(start({ timestamp }), 'k/start'), keyed(end(), 'k/end')], 's1', pairs, 'a');
      const alone = '{"type":"tool_end","toolCallId":"c1","toolName":"t","result":{"ok":true},"timestamp":7}';
      expect(rows).toEqual({ texts: [text], keys: ['k/end'], steps: [2], widths: [2], elided: [true], startKeys: ['k/start'], alone: [alone] });
      expect(text.startsWith(FOLDED_START_PREFIX)).toBe(true);
      expect(chunksFromStored(text, 's1', 2, 9, null, 'a')).toEqual([
        { ...start({ timestamp }), sequence: 8 },
        { ...end(), sequence: 9 },
      ]);
    }
  });

  it('keeps a sub-agent’s agentId and an agent type the stream does not record, on both chunks', () => {
    const child = { agentId: 's1-sub-c9', agentType: 'child' };
    const rows = storedRows([keyed(start(child), 'k/start'), keyed(end(child), 'k/end')], 's1', pairs, 'a');
    expect(rows.widths).toEqual([2]);
    expect(chunksFromStored(rows.texts[0]!, 's1', 2, 5, null, 'a')).toEqual([
      { ...start(child), sequence: 4 },
      { ...end(child), sequence: 5 },
    ]);
  });

  it('folds a failed call too, and pairs each call of a batch with its own end', () => {
    const rows = storedRows(
      [keyed(start(), 'k/s1'), keyed(end({ result: undefined, error: 'boom' }), 'k/e1'), keyed(start({ toolCallId: 'c2' }), 'k/s2'), keyed(end({ toolCallId: 'c2' }), 'k/e2')],
      's1',
      pairs,
    );
    expect(rows).toMatchObject({ keys: ['k/e1', 'k/e2'], widths: [2, 2] });
    expect(chunksFromStored(rows.texts[0]!, 's1', 2, 2, null)[1]).toMatchObject({ type: 'tool_end', error: 'boom', sequence: 2 });
  });

  it.each([
    ['without pairsTools (its key must stay findable: the step may write it again)', [start(), end()], { withCheckpoint: true }],
    ['before another call’s end', [start(), end({ toolCallId: 'c2' })], pairs],
    ['before another agent’s end', [start(), end({ agentId: 's1-sub' })], pairs],
    ['before another step’s end', [start(), end({ step: 3 })], pairs],
    ['with a member of its own (a client tool)', [start({ clientExecuted: true }), end()], pairs],
    ['without arguments', [start({ arguments: undefined }), end()], pairs],
    ['with a state_patch between', [start(), end({ type: 'state_patch', patches: [], toolCallId: undefined, toolName: undefined, result: undefined }), end()], pairs],
  ] as const)('is not folded %s', (_case, chunks, folds) => {
    const keyedChunks = chunks.map((chunk, index) => keyed(chunk, `k/${index}`));
    const rows = storedRows(keyedChunks, 's1', folds);
    expect(rows.widths).toEqual(chunks.map(() => 1));
    expect(rows.keys).toEqual(keyedChunks.map((chunk) => chunk.key));
    expect(rows.texts.some((text) => text.startsWith(FOLDED_START_PREFIX))).toBe(false);
  });
});
