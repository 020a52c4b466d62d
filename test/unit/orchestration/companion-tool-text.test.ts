import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createCompanionTools, defineAgent } from '../../../src/agent/index.js';

const worker = defineAgent({ name: 'worker', systemPrompt: 'Work.', outputSchema: z.object({ done: z.boolean() }) });
const parent = defineAgent({ name: 'parent', systemPrompt: 'Lead.', persistentAgents: [{ agent: worker, mode: 'blocking' }] });
const descriptionOf = (action: string): string => createCompanionTools(parent.persistentAgents).find((tool) => tool.name === `companion__${action}`)?.description ?? '';

describe('companion tool descriptions tell the model what the calls do', () => {
  it('sendMessage: a running child is not interrupted; the message is queued as its next turn', () => {
    const text = descriptionOf('sendMessage');
    expect(text).not.toMatch(/interrupt(ed|s)? and resume/i);
    expect(text).toMatch(/does not interrupt/i);
    expect(text).toMatch(/queued/i);
    expect(text).toMatch(/next turn/i);
  });

  it('waitForResult: waits for the turn the latest message started, even while it is queued', () => {
    const text = descriptionOf('waitForResult');
    expect(text).toMatch(/latest spawnAgent or sendMessage/);
    expect(text).toMatch(/queued/i);
  });
});
