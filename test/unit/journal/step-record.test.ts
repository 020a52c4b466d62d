import { describe, expect, it } from 'vitest';
import { sharesSystemDatabase } from '../../../src/journal/step-record.js';

/** A participant whose fingerprint answers are scripted (an Error rejects). */
function participant(...answers: Array<string | Error>): { databaseFingerprint(): Promise<string>; asked: number } {
  const component = {
    asked: 0,
    databaseFingerprint: async () => {
      const answer = answers[Math.min(component.asked++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return component;
}

describe('sharesSystemDatabase', () => {
  const system = async (): Promise<string> => 'db-a';

  it.each([
    ['the same database', participant('db-a'), true],
    ['another database', participant('db-b'), false],
    ['a component that declares no step records', undefined, false],
    ['a component whose question fails', participant(new Error('connection refused')), false],
  ])('%s', async (_label, component, expected) => {
    expect(await sharesSystemDatabase(component, system)).toBe(expected);
  });

  it('answers once per component and process', async () => {
    const component = participant('db-a');
    expect(await sharesSystemDatabase(component, system)).toBe(true);
    expect(await sharesSystemDatabase(component, system)).toBe(true);
    expect(component.asked).toBe(1);
  });

  it('asks again after a failed question (a database that was restarting) instead of keeping "not shared"', async () => {
    const component = participant(new Error('the database system is starting up'), 'db-a');
    expect(await sharesSystemDatabase(component, system)).toBe(false);
    expect(await sharesSystemDatabase(component, system)).toBe(true);
    expect(await sharesSystemDatabase(component, system)).toBe(true);
    expect(component.asked).toBe(2);
  });
});
