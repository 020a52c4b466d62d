import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatSchemaIssues } from '../../../src/orchestration/schema-issues.js';
import { DEFAULT_TOOL_ARGUMENT_LIMITS, nestingDepth, screenToolCalls } from '../../../src/orchestration/tool-argument-limits.js';
import type { StepResult } from '../../../src/types/llm.js';
import { argumentTextViolation, jsonTextDepth } from '../../../src/llm/vercel/argument-guard.js';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = { inner: value };
  return value;
}

function step(args: Record<string, unknown>[]): StepResult {
  return {
    text: '',
    toolCalls: args.map((value, index) => ({ id: `c${index}`, name: 'search', arguments: value })),
    finishReason: 'tool_calls',
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  };
}

describe('nestingDepth', () => {
  const cases: Array<[string, unknown, number]> = [
    ['a scalar', 5, 0],
    ['a flat object', { a: 1 }, 1],
    ['arrays count', { a: [1, [2]] }, 3],
    ['10,000 levels (no stack overflow), stops past the limit', nested(10_000), 65],
  ];
  it.each(cases)('%s', (_label, value, depth) => {
    expect(nestingDepth(value, 64)).toBe(depth);
  });
});

describe('screenToolCalls', () => {
  it('rejects too deep and too large arguments with a bounded error, keeps the others', () => {
    const screened = screenToolCalls(step([{ q: 'fine' }, nested(10_000) as Record<string, unknown>, { blob: 'x'.repeat(300 * 1024) }]), DEFAULT_TOOL_ARGUMENT_LIMITS);
    expect(screened.toolCalls.map((call) => call.arguments)).toEqual([{ q: 'fine' }, {}, {}]);
    expect(screened.invalidToolCalls).toEqual([
      { toolCallId: 'c1', toolName: 'search', error: 'The arguments nest deeper than 64 levels. Call the tool again with smaller arguments.' },
      { toolCallId: 'c2', toolName: 'search', error: `The arguments are larger than ${256 * 1024} bytes. Call the tool again with smaller arguments.` },
    ]);
    expect(JSON.stringify(screened).length).toBeLessThan(2_000);
  });

  it('returns the same result when every call is within the limits', () => {
    const result = step([{ q: 'a' }]);
    expect(screenToolCalls(result, DEFAULT_TOOL_ARGUMENT_LIMITS)).toBe(result);
  });
});

describe('formatSchemaIssues bounds', () => {
  const strict = z.strictObject({ city: z.string() });
  it('counts unknown keys without echoing them, whatever their size', () => {
    const key = 'k'.repeat(1_048_576);
    const parsed = strict.safeParse({ city: 'Oslo', [key]: 1, other: 2 });
    expect(parsed.success).toBe(false);
    const text = formatSchemaIssues(parsed.error!.issues);
    expect(text).toBe('(root): 2 unrecognized keys');
  });

  it('clips long paths and caps the whole text at 1,000 characters', () => {
    const record = z.record(z.string(), z.number());
    const parsed = record.safeParse(Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`${'p'.repeat(500)}${index}`, 'x'])));
    const text = formatSchemaIssues(parsed.error!.issues);
    expect(text.length).toBeLessThanOrEqual(1_001);
    expect(text).not.toContain('p'.repeat(65));
  });
});

describe('jsonTextDepth / argumentTextViolation (argument text, before any parser)', () => {
  const cases: Array<[string, string, number]> = [
    ['flat', '{"a":1}', 1],
    ['brackets inside strings do not count', '{"a":"[[[{{{","b":[1]}', 2],
    ['escaped quotes stay inside the string', '{"a":"\\"[[[","b":{}}', 2],
    ['10,000 levels stop past the limit', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, 65],
  ];
  it.each(cases)('%s', (_label, text, depth) => {
    expect(jsonTextDepth(text, 64)).toBe(depth);
  });

  it('names the limit, never the content', () => {
    const limits = { maxDepth: 4, maxBytes: 100 };
    expect(argumentTextViolation('{"a":{"b":{"c":{"d":{"e":1}}}}}', limits)).toBe('The arguments nest deeper than 4 levels. Call the tool again with smaller arguments.');
    expect(argumentTextViolation(`{"secret":"${'é'.repeat(60)}"}`, limits)).toBe('The arguments are larger than 100 bytes. Call the tool again with smaller arguments.');
    expect(argumentTextViolation('{"ok":true}', limits)).toBeUndefined();
  });
});
