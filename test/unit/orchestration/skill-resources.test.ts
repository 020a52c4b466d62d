import { describe, expect, it } from 'vitest';
import { lineRangeProblem, normalizeSkillResourcePath, sliceLines } from '../../../src/orchestration/skill-resources.js';

describe('normalizeSkillResourcePath', () => {
  const cases: Array<[string, string | null]> = [
    ['references/forms.md', 'references/forms.md'],
    ['./references/./forms.md', 'references/forms.md'],
    ['references//forms.md', 'references/forms.md'],
    ['references/a/../forms.md', 'references/forms.md'],
    ['references\\forms.md', 'references/forms.md'],
    ['SKILL.md', 'SKILL.md'],
    ['..', null],
    ['../other-skill/SKILL.md', null],
    ['references/../../secret.txt', null],
    ['references\\..\\..\\secret.txt', null],
    ['/etc/passwd', null],
    ['\\\\server\\share', null],
    ['C:/Windows/win.ini', null],
    ['c:secret', null],
    ['', null],
    ['.', null],
    ['references/..', null],
    ['refer\0ences/a.md', null],
  ];
  it.each(cases)('%j → %j', (path, expected) => {
    expect(normalizeSkillResourcePath(path)).toBe(expected);
  });
});

describe('lineRangeProblem', () => {
  const cases: Array<[Parameters<typeof lineRangeProblem>[0], string | undefined]> = [
    [undefined, undefined],
    [{}, undefined],
    [{ startLine: 1 }, undefined],
    [{ endLine: 3 }, undefined],
    [{ startLine: 2, endLine: 2 }, undefined],
    [{ startLine: 0 }, 'startLine must be an integer of at least 1.'],
    [{ startLine: 1.5 }, 'startLine must be an integer of at least 1.'],
    [{ endLine: -1 }, 'endLine must be an integer of at least 1.'],
    [{ startLine: 5, endLine: 2 }, 'startLine must not be greater than endLine.'],
  ];
  it.each(cases)('%j → %j', (range, expected) => {
    expect(lineRangeProblem(range)).toBe(expected);
  });
});

describe('sliceLines', () => {
  const text = 'one\ntwo\nthree\nfour\n';
  const cases: Array<[string, string, Parameters<typeof sliceLines>[1], string]> = [
    ['no range: whole text', text, undefined, text],
    ['empty range: whole text', text, {}, text],
    ['middle lines', text, { startLine: 2, endLine: 3 }, 'two\nthree\n'],
    ['from a line to the end', text, { startLine: 3 }, 'three\nfour\n'],
    ['from the start to a line', text, { endLine: 1 }, 'one\n'],
    ['end past the file is clamped', text, { startLine: 4, endLine: 99 }, 'four\n'],
    ['start past the file is empty', text, { startLine: 9 }, ''],
    ['last line without a newline', 'a\nb', { startLine: 2 }, 'b'],
    ['CRLF kept', 'a\r\nb\r\nc', { startLine: 2, endLine: 2 }, 'b\r\n'],
    ['blank lines count', 'a\n\nc\n', { startLine: 2, endLine: 3 }, '\nc\n'],
  ];
  it.each(cases)('%s', (_label, input, range, expected) => {
    expect(sliceLines(input, range)).toBe(expected);
  });

  it('throws RangeError for an invalid range', () => {
    expect(() => sliceLines(text, { startLine: 3, endLine: 1 })).toThrow(RangeError);
  });
});
