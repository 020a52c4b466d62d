import { describe, expect, it } from 'vitest';
import { endsRun } from '../../../src/stream/run-end.js';
import type { StreamChunk } from '../../../src/types/stream.js';

describe('endsRun', () => {
  const cases: Array<[StreamChunk['type'], string, boolean]> = [
    ['output', 's1', true],
    ['error', 's1', true],
    ['run_interrupted', 's1', true],
    ['output', 's1-child', false], // a sub-agent's output ends its own run, not its parent's
    ['error', 's1-child', false],
    ['text_delta', 's1', false],
    ['run_suspended', 's1', false], // a run waiting for a human has not ended
    ['subagent_end', 's1', false],
    ['tool_end', 's1', false],
  ];
  it.each(cases)('%s written by %s ends the run of s1: %s', (type, agentId, expected) => {
    expect(endsRun({ type, agentId }, 's1')).toBe(expected);
  });
});
