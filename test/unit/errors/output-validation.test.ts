import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { planStepProcessing, shouldStopExecution } from '../../../src/orchestration/index.js';
import { describeIssueLocations } from '../../../src/orchestration/schema-issues.js';
import { fullAgent, stepWith, textAgent } from '../orchestration/fixtures.js';

const context = { sessionId: 's1', runId: 'run-1', step: 2 };

describe('describeIssueLocations', () => {
  const schema = z.object({ answer: z.string(), items: z.array(z.object({ n: z.number().max(3) })), tags: z.record(z.string(), z.number()) });
  const cases: Array<[string, unknown, string]> = [
    ['a wrong type', { answer: 7, items: [], tags: {} }, '$.answer (invalid_type)'],
    ['a nested index', { answer: 'a', items: [{ n: 1 }, { n: 99 }], tags: {} }, '$.items[1].n (too_big)'],
    ['the root', 'not an object', '$ (invalid_type)'],
    ['a record key the model chose, clipped', { answer: 'a', items: [], tags: { ['k'.repeat(100)]: 'x' } }, `$.tags.${'k'.repeat(64)}… (invalid_type)`],
  ];
  it.each(cases)('names %s by path and code, never the value', (_name, value, expected) => {
    const parsed = schema.safeParse(value);
    expect(describeIssueLocations(parsed.error!.issues)).toBe(expected);
  });

  it('lists at most five issues', () => {
    const wide = z.object(Object.fromEntries(Array.from({ length: 7 }, (_, index) => [`f${index}`, z.string()])));
    expect(describeIssueLocations(wide.safeParse({}).error!.issues)).toBe('$.f0 (invalid_type), $.f1 (invalid_type), $.f2 (invalid_type), $.f3 (invalid_type), $.f4 (invalid_type) and 2 more');
  });
});

describe('an invalid __finish__ output', () => {
  it('tells the model where it failed validation, with no values, and keeps that for the run error', () => {
    const plan = planStepProcessing(stepWith([{ name: '__finish__', arguments: { answer: 'SECRET-VALUE', confidence: 7 } }]), fullAgent, context);
    const [failure] = plan.toolErrors;
    expect(failure).toMatchObject({ reason: 'invalid_output', outputFailure: 'Output failed validation at $.confidence (too_big)' });
    expect(failure?.error).toContain('does not match the required schema. Output failed validation at $.confidence (too_big): confidence: Too big');
    expect(failure?.error).not.toContain('SECRET-VALUE');
  });

  it('unparsable by the adapter says so', () => {
    const step = { ...stepWith([{ name: '__finish__', arguments: {} }]), invalidToolCalls: [] as Array<{ toolCallId: string; toolName: string; error: string }> };
    step.invalidToolCalls.push({ toolCallId: step.toolCalls[0]!.id, toolName: '__finish__', error: 'The arguments are not a valid JSON object.' });
    expect(planStepProcessing(step, fullAgent, context).toolErrors[0]?.outputFailure).toBe('Output was not a valid JSON object');
  });

  it('invalid tool arguments carry no output failure', () => {
    expect(planStepProcessing(stepWith([{ name: 'search', arguments: { query: 1 } }]), fullAgent, context).toolErrors[0]?.outputFailure).toBeUndefined();
  });
});

describe('the max_steps error', () => {
  const toolStep = stepWith([{ name: 'search', arguments: { query: 'aa' } }]);
  it.each([
    ['without an output failure', undefined, 'Max steps exceeded (10)'],
    ['after an invalid output', 'Output failed validation at $.answer (invalid_type)', 'Output failed validation at $.answer (invalid_type); max steps exceeded (10)'],
  ])('%s', (_name, outputFailure, error) => {
    const decision = shouldStopExecution({ agent: textAgent, stepResult: toolStep, stepCount: 10, customState: {}, ...(outputFailure === undefined ? {} : { outputFailure }) });
    expect(decision).toEqual({ stop: true, reason: 'max_steps', status: 'failed', error });
  });
});
