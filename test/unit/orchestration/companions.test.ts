import { describe, expect, it } from 'vitest';
import {
  autoCompanionName,
  companionContinueWorkflowId,
  companionRefStatus,
  companionResult,
  companionSpawnWorkflowId,
  companionTurnRunId,
  decideCompanionTarget,
  deliveryText,
  turnOutcomeOf,
  type CompanionChildView,
  type CompanionTargetAction,
} from '../../../src/orchestration/companions.js';
import type { RunStatus, SubSessionRef } from '../../../src/types/session.js';

const view = (extra: Partial<CompanionChildView>): CompanionChildView => ({ agentType: 'researcher', status: 'completed', parked: false, ...extra });

describe('decideCompanionTarget', () => {
  const table: Array<[string, 'spawnAgent' | 'sendMessage', string | undefined, CompanionChildView | null, CompanionTargetAction]> = [
    ['spawn of a new name', 'spawnAgent', 'researcher', null, 'spawn'],
    ['message to an unknown name', 'sendMessage', undefined, null, 'unknown_child'],
    ['spawn re-using a completed child continues it', 'spawnAgent', 'researcher', view({}), 'message'],
    ['message to a completed child continues it', 'sendMessage', undefined, view({}), 'message'],
    ['message to an interrupted child', 'sendMessage', undefined, view({ status: 'interrupted' }), 'message'],
    ['message to a running child is queued', 'sendMessage', undefined, view({ status: 'active' }), 'message'],
    ['spawn with the name of a running child is refused', 'spawnAgent', 'researcher', view({ status: 'active' }), 'refuse_running'],
    ['a failed child re-spawns', 'sendMessage', undefined, view({ status: 'failed' }), 'respawn'],
    ['an aborted child re-spawns', 'spawnAgent', 'researcher', view({ status: 'failed', failureReason: 'aborted' }), 'respawn'],
    ['a terminated ref re-spawns whatever the session says', 'sendMessage', undefined, view({ status: 'active', terminated: true }), 'respawn'],
    ['a child waiting for a human refuses', 'sendMessage', undefined, view({ status: 'active', parked: true }), 'refuse_waiting_human'],
    ['a name of another agent type refuses', 'spawnAgent', 'watcher', view({}), 'refuse_other_type'],
  ];
  it.each(table)('%s', (_label, action, agentType, child, expected) => {
    expect(decideCompanionTarget(action, agentType, child)).toBe(expected);
  });
});

describe('companion run statuses', () => {
  const table: Array<[RunStatus, SubSessionRef['status'], string]> = [
    ['running', 'running', 'running'],
    ['completed', 'completed', 'completed'],
    ['failed', 'failed', 'failed'],
    ['interrupted', 'interrupted', 'interrupted'],
    ['aborted', 'terminated', 'terminated'],
    ['suspended_client_tool', 'paused_awaiting_client', 'waiting_for_human'],
    ['suspended_awaiting_children', 'paused_awaiting_client', 'waiting_for_human'],
  ];
  it.each(table)('%s → ref %s, outcome %s', (status, ref, outcome) => {
    expect(companionRefStatus(status)).toBe(ref);
    expect(turnOutcomeOf({ status }).kind).toBe(outcome);
  });

  it('a failed turn is a failure with its error, never completed', () => {
    expect(turnOutcomeOf({ status: 'failed', error: 'boom' })).toEqual({ kind: 'failed', error: 'boom' });
    expect(companionResult('r', { kind: 'failed', error: 'boom' })).toEqual({ name: 'r', status: 'failed', error: 'boom' });
    expect(companionResult('r', turnOutcomeOf({ status: 'completed', output: { a: 1 } }))).toEqual({ name: 'r', status: 'completed', output: { a: 1 } });
    expect(deliveryText('r', 'researcher', { kind: 'completed', output: 'x' })).toBe('[companion r (researcher) finished] {"name":"r","status":"completed","output":"x"}');
  });
});

describe('companion names and ids', () => {
  it('auto-names take the first free counter', () => {
    expect(autoCompanionName('researcher', [])).toBe('researcher-1');
    expect(autoCompanionName('researcher', [{ name: 'researcher-1' }, { name: 'researcher-3' }])).toBe('researcher-2');
    expect(autoCompanionName('researcher', [{ name: 'researcher-1' }, { name: 'researcher-2' }])).toBe('researcher-3');
  });

  it('ids are deterministic per call', () => {
    expect(companionSpawnWorkflowId('s1-agent-r', 'c1')).toBe('s1-agent-r-spawn-c1');
    expect(companionContinueWorkflowId('s1-agent-r', 'c2')).toBe('s1-agent-r-continue-c2');
    expect(companionTurnRunId('run-1', 'c1')).toBe(companionTurnRunId('run-1', 'c1'));
    expect(companionTurnRunId('run-1', 'c1')).not.toBe(companionTurnRunId('run-1', 'c2'));
  });
});
