import { describe, expect, it } from 'vitest';
import { ProgressBar, progressLine } from '../../../src/cli/render/progress.js';
import { fit, renderFields, renderTable } from '../../../src/cli/render/table.js';
import { formatAge, formatTime, inlineValue } from '../../../src/cli/render/values.js';
import { answersTable, controlTable, pendingTable, pruneText, sessionsTable } from '../../../src/cli/render/views.js';

const NOW = Date.parse('2025-01-31T12:00:00Z');

describe('renderTable', () => {
  it.each([
    ['pads columns to their widest cell, two spaces apart, no trailing spaces', [{ header: 'ID' }, { header: 'STATUS' }], [['s1', 'active'], ['session-22', 'ok']], 'ID          STATUS\ns1          active\nsession-22  ok'],
    ['right-aligns numbers', [{ header: 'N', align: 'right' as const }, { header: 'X' }], [['5', 'a'], ['120', 'b']], '  N  X\n  5  a\n120  b'],
    ['cuts long cells with …', [{ header: 'V', maxWidth: 5 }], [['abcdefgh']], 'V\nabcd…'],
    ['puts line breaks and tabs on one line', [{ header: 'V' }], [['a\nb\tc']], 'V\na b c'],
    ['says (none) without rows', [{ header: 'ID' }, { header: 'STATUS' }], [], 'ID  STATUS\n(none)'],
    ['fills missing cells', [{ header: 'A' }, { header: 'B' }], [['x']], 'A  B\nx'],
  ])('%s', (_label, columns, rows, text) => {
    expect(renderTable(columns, rows)).toBe(text);
  });

  it('fit counts characters, not UTF-16 units', () => {
    expect(fit('ééééé', 5)).toBe('ééééé');
    expect(fit('🙂🙂🙂🙂🙂🙂', 3)).toBe('🙂🙂…');
  });

  it('renderFields aligns keys and skips absent values', () => {
    expect(renderFields([['Session', 's1'], ['Error', undefined], ['Id', 'x']])).toBe('Session  s1\nId       x');
  });
});

describe('values', () => {
  it.each([
    [NOW - 5_000, '5s'],
    [NOW - 61_000, '1m'],
    [NOW - 3 * 3_600_000, '3h'],
    [NOW - 2 * 86_400_000, '2d'],
    [NOW + 10_000, '0s'],
    [undefined, '-'],
  ])('formatAge(%s)', (time, text) => {
    expect(formatAge(time, NOW)).toBe(text);
  });

  it('formats times in UTC and values inline', () => {
    expect(formatTime(Date.UTC(2025, 0, 31, 12, 0, 5))).toBe('2025-01-31 12:00:05');
    expect(formatTime(undefined)).toBe('-');
    expect(inlineValue({ amount: 5 })).toBe('{"amount":5}');
    expect(inlineValue('text')).toBe('text');
    expect(inlineValue(null)).toBe('-');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(inlineValue(cyclic)).toBe('[unserializable]');
  });
});

describe('progress', () => {
  it.each([
    [0, 4, '', '[--------] 0/4'],
    [1, 4, 'abort s1', '[##------] 1/4 abort s1'],
    [4, 4, 'abort s4', '[########] 4/4 abort s4'],
    [5, 4, 'pruned', '[########] 5/5 pruned'],
    [0, 0, '', '[########] 0/0'],
  ])('progressLine(%i, %i)', (done, total, label, line) => {
    expect(progressLine(done, total, label, 8)).toBe(line);
  });

  it('redraws in place on a terminal, one line per update in a log, nothing when disabled', () => {
    const draw = (interactive: boolean, enabled: boolean): string => {
      let text = '';
      const bar = new ProgressBar({ write: (chunk) => (text += chunk), interactive }, 2, enabled);
      bar.tick('a');
      bar.tick('b');
      bar.finish();
      return text;
    };
    expect(draw(true, true)).toBe(`\r${progressLine(1, 2, 'a')}\u001b[K\r${progressLine(2, 2, 'b')}\u001b[K\n`);
    expect(draw(false, true)).toBe(`${progressLine(1, 2, 'a')}\n${progressLine(2, 2, 'b')}\n`);
    expect(draw(true, false)).toBe('');
  });
});

describe('views', () => {
  it('lists sessions with their wait, age and the next page', () => {
    const page = {
      sessions: [{ sessionId: 's1', agentType: 'assistant', status: 'failed' as const, failureReason: 'aborted', stepCount: 3, createdAt: 0, updatedAt: NOW - 120_000, awaitingHuman: false, userId: 'alice' }],
      total: 7,
      nextCursor: 'CUR',
    };
    expect(sessionsTable(page, NOW)).toBe(
      ['SESSION  AGENT      STATUS            HUMAN  STEPS  UPDATED  USER', 's1       assistant  failed (aborted)  -          3   2m ago  alice', '1 of 7 session(s); next page: --cursor CUR'].join('\n'),
    );
  });

  it('shows pending calls, answers, control results and prune totals', () => {
    expect(pendingTable([{ sessionId: 's1', toolCallId: 'c1', toolName: 'pay', kind: 'approval', input: { amount: 5 }, createdAt: NOW - 30_000 }], NOW)).toBe(
      'SESSION  CALL  TOOL  KIND      INPUT         WAITING\ns1       c1    pay   approval  {"amount":5}      30s',
    );
    expect(
      answersTable([
        { sessionId: 's1', toolCallId: 'c1', status: 'accepted', next: 'needs_resume' },
        { sessionId: 's2', error: { code: 'CLI_NO_OPEN_CALLS', message: 'None open.' } },
      ]),
    ).toBe('SESSION  CALL  RESULT             NEXT\ns1       c1    accepted           needs_resume: run `helix-agents resume` through --server\ns2       -     CLI_NO_OPEN_CALLS  None open.');
    expect(controlTable([{ sessionId: 's1', status: 'aborted' }])).toBe('SESSION  RESULT   DETAIL\ns1       aborted  -');
    expect(pruneText({ sessions: 1, chunksDeleted: 2, workflowsDeleted: 3 })).toBe('Pruned 1 session(s): 2 stream chunk(s) and 3 DBOS workflow record(s) deleted.');
  });
});
