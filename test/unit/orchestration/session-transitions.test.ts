import { describe, expect, it } from 'vitest';
import {
  decideSessionOperation,
  sessionViewOf,
  type SessionDecision,
  type SessionOperation,
  type SessionView,
} from '../../../src/orchestration/session-transitions.js';
import type { RunStatus, SessionStatus } from '../../../src/types/session.js';

const STATUSES: Array<SessionStatus | 'missing'> = ['missing', 'active', 'completed', 'failed', 'interrupted', 'paused'];
const RUNS: Array<RunStatus | 'none'> = [
  'none',
  'running',
  'completed',
  'failed',
  'interrupted',
  'aborted',
  'suspended_client_tool',
  'suspended_awaiting_children',
  'suspended_step_partial',
];
const OPERATIONS: SessionOperation[] = ['execute', 'resume', 'retry', 'submit'];

type Cell = SessionDecision['action'] | `refuse:${string}`;
/** Per operation and session status: the decision for every run status, `parked` columns where parking matters. */
type Row = { default: Cell } & Partial<Record<RunStatus | 'none' | 'parked:suspended_client_tool' | 'parked:suspended_awaiting_children', Cell>>;

const TABLE: Record<SessionOperation, Record<SessionStatus | 'missing', Row>> = {
  execute: {
    missing: { default: 'create' },
    active: { default: 'await_run', running: 'attach', 'parked:suspended_client_tool': 'refuse:awaiting_humans', 'parked:suspended_awaiting_children': 'refuse:awaiting_humans' },
    completed: { default: 'start_turn' },
    failed: { default: 'refuse:not_continuable', aborted: 'refuse:aborted' },
    interrupted: { default: 'refuse:not_continuable' },
    paused: { default: 'refuse:not_continuable' },
  },
  resume: {
    missing: { default: 'refuse:not_found' },
    active: { default: 'await_run', running: 'attach', 'parked:suspended_client_tool': 'take_and_start', 'parked:suspended_awaiting_children': 'take_and_start' },
    completed: { default: 'refuse:not_resumable' },
    failed: { default: 'refuse:not_resumable', aborted: 'refuse:aborted' },
    interrupted: { default: 'take_and_start' },
    paused: { default: 'take_and_start' },
  },
  retry: {
    missing: { default: 'refuse:not_found' },
    active: { default: 'refuse:not_retryable' },
    completed: { default: 'refuse:not_retryable' },
    failed: { default: 'restart' },
    interrupted: { default: 'refuse:not_retryable' },
    paused: { default: 'refuse:not_retryable' },
  },
  submit: {
    missing: { default: 'record_only' },
    active: { default: 'wake', 'parked:suspended_client_tool': 'record_for_resume', 'parked:suspended_awaiting_children': 'record_for_resume' },
    completed: { default: 'record_only' },
    failed: { default: 'record_only' },
    interrupted: { default: 'record_for_resume' },
    paused: { default: 'record_for_resume' },
  },
};

function cellOf(decision: SessionDecision): Cell {
  return decision.action === 'refuse' ? `refuse:${decision.reason}` : decision.action;
}

const cells: Array<[SessionOperation, SessionView, Cell]> = [];
for (const operation of OPERATIONS) {
  for (const status of STATUSES) {
    const row = TABLE[operation][status];
    for (const run of RUNS) {
      for (const parked of [false, true]) {
        const key = parked ? (`parked:${run}` as const) : run;
        const expected = (parked ? (row as Record<string, Cell>)[key] : undefined) ?? row[run] ?? row.default;
        cells.push([operation, { status, run, parked }, expected]);
      }
    }
  }
}

describe('the session state machine', () => {
  it('covers every (operation, session status, run status, parked) cell', () => {
    expect(cells).toHaveLength(OPERATIONS.length * STATUSES.length * RUNS.length * 2);
  });

  it.each(cells)('%s on %o → %s', (operation, view, expected) => {
    expect(cellOf(decideSessionOperation(operation, view))).toBe(expected);
  });

  // A set interrupt flag changes one decision: resume of a running run waits for the interruption to land.
  it.each([
    ['resume', { status: 'active', run: 'running', parked: false }, 'await_interrupt'],
    ['resume', { status: 'active', run: 'running', parked: true }, 'await_interrupt'],
    ['resume', { status: 'active', run: 'suspended_client_tool', parked: true }, 'take_and_start'],
    ['resume', { status: 'interrupted', run: 'interrupted', parked: false }, 'take_and_start'],
    ['execute', { status: 'active', run: 'running', parked: false }, 'attach'],
    ['submit', { status: 'active', run: 'running', parked: false }, 'wake'],
  ] satisfies Array<[SessionOperation, SessionView, Cell]>)('%s on %o with the interrupt flag set → %s', (operation, view, expected) => {
    expect(cellOf(decideSessionOperation(operation, { ...view, interrupting: true }))).toBe(expected);
  });

  it('reads the view from a stored session and run', () => {
    expect(sessionViewOf(null, null)).toEqual({ status: 'missing', run: 'none', parked: false });
    expect(sessionViewOf({ status: 'active', suspendedStepId: 'run-1:2' }, { status: 'suspended_client_tool' })).toEqual({
      status: 'active',
      run: 'suspended_client_tool',
      parked: true,
    });
    expect(sessionViewOf({ status: 'completed' }, null)).toEqual({ status: 'completed', run: 'none', parked: false });
  });
});
