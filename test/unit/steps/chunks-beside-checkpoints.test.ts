import { describe, expect, it } from 'vitest';
import { chunksBesideCheckpoints } from '../../../src/steps/tool-step-commit.js';

const inSchema = (schema: string) => ({ stepRecords: { schema: () => schema } });

describe('chunksBesideCheckpoints: may a committed step’s state_patch chunk refer to its checkpoint', () => {
  it.each([
    ['store and stream manager in one schema', inSchema('public'), inSchema('public'), true],
    ['in different schemas', inSchema('public'), inSchema('helix'), false],
    ['a stream manager that cannot tell (Redis, in-memory)', inSchema('public'), {}, false],
    ['a store that cannot tell', {}, inSchema('public'), false],
    ['neither', {}, {}, false],
  ])('%s → %s', (_case, store, streams, expected) => {
    expect(chunksBesideCheckpoints(store, streams)).toBe(expected);
  });
});
