import { describe, expect, it } from 'vitest';
import { messageId } from '../../../src/orchestration/ids.js';
import { checkpointIdFor, persistentWorkflowId, standardWorkflowId } from '../../../src/orchestration/ids.js';

describe('workflow ids', () => {
  it('standard runs: `${agentType}__${sessionId}__${runId}`', () => {
    expect(standardWorkflowId('assistant', 's1', 'run-1')).toBe('assistant__s1__run-1');
    expect(standardWorkflowId('research-bot', 'chat_42', 'run-9f3c')).toBe('research-bot__chat_42__run-9f3c');
  });

  it('is deterministic and distinct per agent, session and run', () => {
    expect(standardWorkflowId('a', 's', 'r')).toBe(standardWorkflowId('a', 's', 'r'));
    const ids = [
      standardWorkflowId('a', 's1', 'r1'),
      standardWorkflowId('a', 's1', 'r2'),
      standardWorkflowId('a', 's2', 'r1'),
      standardWorkflowId('b', 's1', 'r1'),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('persistent sessions: `${agentType}__${sessionId}__persistent`, never equal to a standard run id', () => {
    expect(persistentWorkflowId('assistant', 's1')).toBe('assistant__s1__persistent');
    expect(persistentWorkflowId('assistant', 's1')).not.toBe(standardWorkflowId('assistant', 's1', 'run-1'));
  });

  it('checkpoints: `${runId}:${stepNumber}`, the prefix of that step\'s message ids', () => {
    expect(checkpointIdFor('run-1', 3)).toBe('run-1:3');
    expect(checkpointIdFor('run-1', 0)).toBe('run-1:0');
    expect(messageId('run-1', 3, 2).startsWith(`${checkpointIdFor('run-1', 3)}:`)).toBe(true);
    expect(checkpointIdFor('run-1', 1)).not.toBe(checkpointIdFor('run-1', 11));
  });
});
