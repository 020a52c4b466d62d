import { describe, expect, it } from 'vitest';
import { SessionNotFoundError, StaleStateError } from '../../../src/errors/index.js';
import { InMemoryStateStore } from '../../../src/store/index.js';
import { sessionDeletedError, updateSessionIfExists, updateSessionWithRetry } from '../../../src/store/update-session-with-retry.js';
import type { SessionState } from '../../../src/types/session.js';

async function storeWith(sessionId: string): Promise<InMemoryStateStore> {
  const store = new InMemoryStateStore();
  await store.createSession(sessionId, { agentType: 'a' });
  return store;
}

describe('updateSessionWithRetry / updateSessionIfExists', () => {
  it('writes on the current version and returns the value with the state it decided on', async () => {
    const store = await storeWith('s1');
    const { value, state } = await updateSessionWithRetry(store, 's1', (current) => ({ write: { stepCount: current.stepCount + 1 }, value: 'done' }));
    expect(value).toBe('done');
    expect(state.version).toBe(1);
    expect((await store.loadState('s1'))?.stepCount).toBe(1);
  });

  it('writes nothing for a null write', async () => {
    const store = await storeWith('s1');
    await updateSessionWithRetry(store, 's1', () => ({ write: null, value: undefined }));
    expect((await store.loadState('s1'))?.version).toBe(1);
  });

  it('a lost race re-decides on fresh state (the attempt counts from 1)', async () => {
    const store = await storeWith('s1');
    const seen: Array<[number, number]> = [];
    await updateSessionWithRetry(store, 's1', (current, attempt) => {
      seen.push([attempt, current.version]);
      return { write: { stepCount: 7 }, value: undefined };
    }, {
      save: async (write, expectedVersion) => {
        if (seen.length === 1) await store.saveState('s1', { tags: ['concurrent'] }); // another writer wins the first race
        await store.saveState('s1', write, { expectedVersion });
      },
    });
    expect(seen).toEqual([[1, 1], [2, 2]]);
    expect(await store.loadState('s1')).toMatchObject({ stepCount: 7, tags: ['concurrent'], version: 3 });
  });

  it('decides on knownState first, and reloads after a lost race', async () => {
    const store = await storeWith('s1');
    const stale = { ...(await store.loadState('s1'))!, stepCount: 41 } as SessionState;
    await store.saveState('s1', { stepCount: 1 });
    const seen: number[] = [];
    await updateSessionWithRetry(store, 's1', (current) => {
      seen.push(current.stepCount);
      return { write: { stepCount: current.stepCount + 1 }, value: undefined };
    }, { knownState: stale });
    expect(seen).toEqual([41, 1]);
    expect((await store.loadState('s1'))?.stepCount).toBe(2);
  });

  it('throws the StaleStateError after maxAttempts lost races', async () => {
    const store = await storeWith('s1');
    let attempts = 0;
    const losing = updateSessionWithRetry(store, 's1', () => ({ write: { stepCount: 1 }, value: undefined }), {
      maxAttempts: 3,
      save: async () => {
        attempts += 1;
        throw new StaleStateError('s1', 1, 2);
      },
    });
    await expect(losing).rejects.toSatisfy((error: unknown) => StaleStateError.isInstance(error));
    expect(attempts).toBe(3);
  });

  it('another error of the save is not retried', async () => {
    const store = await storeWith('s1');
    let attempts = 0;
    const failing = updateSessionWithRetry(store, 's1', () => ({ write: { stepCount: 1 }, value: undefined }), {
      save: async () => {
        attempts += 1;
        throw new TypeError('boom');
      },
    });
    await expect(failing).rejects.toThrow(TypeError);
    expect(attempts).toBe(1);
  });

  it('a missing session: SESSION_NOT_FOUND from updateSessionWithRetry, null from updateSessionIfExists', async () => {
    const store = new InMemoryStateStore();
    const change = (): { write: null; value: undefined } => ({ write: null, value: undefined });
    await expect(updateSessionWithRetry(store, 'gone', change)).rejects.toSatisfy(
      (error: unknown) => SessionNotFoundError.isInstance(error) && error.message.includes('deleted while a run or an operation used it'),
    );
    expect(await updateSessionIfExists(store, 'gone', change)).toBeNull();
  });

  it('sessionDeletedError keeps the session id out of the message', () => {
    const error = sessionDeletedError('secret-session-id');
    expect(error.code).toBe('SESSION_NOT_FOUND');
    expect(error.message).not.toContain('secret-session-id');
    expect(error.data).toEqual({ sessionId: 'secret-session-id' });
  });
});
