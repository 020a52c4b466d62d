import { describe, expect, it } from 'vitest';
import {
  COMPANION_LATEST_TURN_KEY,
  decideCurrentTurn,
  latestCompanionTurnPatch,
  readLatestCompanionTurn,
  type CurrentTurnAction,
  type CurrentTurnView,
} from '../../../src/orchestration/companion-turn.js';

const view = (extra: Partial<CurrentTurnView>): CurrentTurnView => ({ terminated: false, latestTurn: 'opened', generationClosed: false, refRunning: false, ...extra });

describe('decideCurrentTurn', () => {
  const table: Array<[string, CurrentTurnView, CurrentTurnAction]> = [
    ['terminated wins over a queued turn', view({ terminated: true, latestTurn: 'not_opened', refRunning: true }), 'terminated'],
    ['a queued turn waits although the previous turn wrote completed', view({ latestTurn: 'not_opened' }), 'pending'],
    ['a queued turn waits while the previous turn runs', view({ latestTurn: 'not_opened', refRunning: true }), 'pending'],
    ['a closed generation runs no queued message: read what is recorded', view({ latestTurn: 'not_opened', generationClosed: true }), 'current_run'],
    ['the newest turn opened and runs', view({ refRunning: true }), 'running'],
    ['the newest turn opened and ended', view({}), 'current_run'],
    ['no newest turn recorded (a session from before): the ref decides', view({ latestTurn: 'none', refRunning: true }), 'running'],
    ['no newest turn recorded, ended', view({ latestTurn: 'none' }), 'current_run'],
  ];
  it.each(table)('%s', (_name, input, expected) => {
    expect(decideCurrentTurn(input)).toBe(expected);
  });
});

describe('the newest turn on the companion session', () => {
  it('round-trips through string metadata', () => {
    expect(latestCompanionTurnPatch('run-sub-1')).toEqual({ [COMPANION_LATEST_TURN_KEY]: 'run-sub-1' });
    expect(readLatestCompanionTurn({ ...latestCompanionTurnPatch('run-sub-1'), other: 'x' })).toBe('run-sub-1');
    expect(readLatestCompanionTurn(undefined)).toBeUndefined();
    expect(readLatestCompanionTurn({ [COMPANION_LATEST_TURN_KEY]: 5 })).toBeUndefined();
  });
});
