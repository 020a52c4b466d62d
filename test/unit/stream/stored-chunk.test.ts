import { describe, expect, it } from 'vitest';
import { chunkFromStored, PATCHES_REFERENCE_PREFIX, storedChunkText } from '../../../src/stream/postgres/stored-chunk.js';
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
});
