import { describe, expect, it } from 'vitest';
import { mayRunUnread, UNREAD_WINDOW_MS, type RecordedFrontier } from '../../../src/journal/fused/recorded-frontier.js';

describe('mayRunUnread: a lean step skips its read only right after its own recorded predecessor, above all replayable steps', () => {
  const at = 10_000;
  const cases: Array<[string, RecordedFrontier, number, number, boolean]> = [
    ['nothing learnt yet (first step of the execution)', {}, 3, at, false],
    ['no step recorded by this execution yet', { knownMax: 2 }, 3, at, false],
    ['nothing known about what is recorded', { lastRecorded: { functionID: 2, at } }, 3, at, false],
    ['directly after its own record, above everything recorded', { knownMax: 0, lastRecorded: { functionID: 2, at } }, 3, at + 1, true],
    ['an operation came between (a DBOS step, a recv, a concurrent step)', { knownMax: 0, lastRecorded: { functionID: 2, at } }, 4, at + 1, false],
    ['at or below what another execution recorded (may be a replay)', { knownMax: 5, lastRecorded: { functionID: 4, at } }, 5, at + 1, false],
    ['just above what another execution recorded', { knownMax: 5, lastRecorded: { functionID: 5, at } }, 6, at + 1, true],
    ['at the end of the window', { knownMax: 0, lastRecorded: { functionID: 2, at } }, 3, at + UNREAD_WINDOW_MS, true],
    ['past the window (the workflow spent a while elsewhere: a cancel may be waiting)', { knownMax: 0, lastRecorded: { functionID: 2, at } }, 3, at + UNREAD_WINDOW_MS + 1, false],
    ['a clock that went backwards', { knownMax: 0, lastRecorded: { functionID: 2, at } }, 3, at - 5, false],
  ];
  it.each(cases)('%s', (_label, frontier, functionID, now, expected) => {
    expect(mayRunUnread(frontier, functionID, now)).toBe(expected);
  });
});
