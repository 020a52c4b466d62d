import { describe, expect, it } from 'vitest';
import {
  autoCompanionName,
  companionContinueWorkflowId,
  companionRefStatus,
  companionResumeWorkflowId,
  companionResult,
  companionSpawnWorkflowId,
  companionTurnRunId,
  decideCompanionCascade,
  decideCompanionTarget,
  deliveryText,
  turnOutcomeOf,
  type CompanionCallWait,
  type CompanionCascadeAction,
  type CompanionCascadeView,
  type CompanionChildView,
  type CompanionTargetAction,
} from '../../../src/orchestration/companions.js';
import type { SuspensionRecord } from '../../../src/orchestration/hitl-types.js';
import { resumeTurnInput } from '../../../src/orchestration/resume-turn.js';
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

describe('decideCompanionCascade (a resumed parent and the companion its parked step waited for)', () => {
  const awaited = (extra: Partial<CompanionCascadeView>): CompanionCascadeView => ({ exists: true, terminated: false, parked: false, runStatus: 'completed', ourTurn: false, ...extra });
  const table: Array<[string, CompanionCascadeView, CompanionCascadeAction]> = [
    ['its turn parked for a human: resume it', awaited({ parked: true, runStatus: 'suspended_client_tool' }), 'continue'],
    ['its turn parked awaiting its own children: resume it', awaited({ parked: true, runStatus: 'suspended_awaiting_children' }), 'continue'],
    ['this parent run resumed it already (re-run of the step)', awaited({ ourTurn: true, runStatus: 'running' }), 'wait_ours'],
    ['our resumed turn parked again: still ours to wait for', awaited({ ourTurn: true, parked: true, runStatus: 'suspended_client_tool' }), 'wait_ours'],
    ['resumed from elsewhere, its turn runs', awaited({ runStatus: 'running' }), 'wait_current'],
    ['its turn completed meanwhile', awaited({ runStatus: 'completed' }), 'drain'],
    ['its turn failed', awaited({ runStatus: 'failed' }), 'drain'],
    ['its turn was interrupted', awaited({ runStatus: 'interrupted' }), 'drain'],
    ['terminated (ref), even with a parked run', awaited({ terminated: true, parked: true, runStatus: 'suspended_client_tool' }), 'drain'],
    ['its session is gone', awaited({ exists: false, runStatus: null }), 'drain'],
  ];
  it.each(table)('%s', (_label, view, expected) => {
    expect(decideCompanionCascade(view)).toBe(expected);
  });

  it('a resume generation per parent run and call', () => {
    const first = companionResumeWorkflowId('s1-agent-k', companionTurnRunId('run-1', 'p1'));
    expect(first).toBe(`s1-agent-k-resume-${companionTurnRunId('run-1', 'p1')}`);
    expect(companionResumeWorkflowId('s1-agent-k', companionTurnRunId('run-2', 'p1'))).not.toBe(first);
    expect(first).not.toBe(companionContinueWorkflowId('s1-agent-k', 'p1'));
  });
});

describe('resumeTurnInput keeps a step that waits for companions open', () => {
  const wait: CompanionCallWait = { call: { toolCallId: 'p1', toolName: 'companion__spawnAgent', input: {}, index: 0, resultMessageId: 'm1', action: 'spawnAgent' }, name: 'k', childSessionId: 's1-agent-k', agentType: 'clerk' };
  const table: Array<[string, SuspensionRecord, boolean]> = [
    ['only a companion waits', { step: 1, stepId: 'x', hitlCalls: [], finishWithCalls: [], companionCalls: [wait] }, true],
    ['nothing waits any more', { step: 1, stepId: 'x', hitlCalls: [], finishWithCalls: [], companionCalls: [] }, false],
  ];
  it.each(table)('%s', (_label, suspension, settles) => {
    const turn = resumeTurnInput({}, { runId: 'run-1', metadata: { suspension } }, 'run-2', { mode: 'continue' });
    expect(turn.resume?.suspension !== undefined).toBe(settles);
  });
});
