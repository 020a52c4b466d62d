import { describe, expect, it } from 'vitest';
import { InMemoryStateStore } from '../../../src/store/memory/in-memory-state-store.js';
import { cachedHistory, loadHistory, noteCommittedMessages } from '../../../src/steps/history-cache.js';
import type { Message } from '../../../src/types/message.js';

const user = (id: string): Message => ({ id, role: 'user', content: id });

describe('history cache after a step commit', () => {
  it('extends the cached history by the committed messages when they line up, without a read', async () => {
    const store = new InMemoryStateStore();
    await store.createSession('h1', { agentType: 'a' });
    await store.appendMessages('h1', [user('m1')]);
    await loadHistory(store, 'h1');
    await store.appendMessages('h1', [user('m2'), user('m3')]);
    const { messages } = await store.getMessages('h1', { offset: 1 });
    expect(noteCommittedMessages(store, 'h1', { messageCount: 3, appended: messages })).toBe(true);
    expect(cachedHistory(store, 'h1')?.map((message) => message.id)).toEqual(['m1', 'm2', 'm3']);
    // The extended cache is what a read returns.
    expect(await loadHistory(store, 'h1')).toEqual((await store.getMessages('h1')).messages);
  });

  it('forgets the session when another writer appended in between, so the next load reads everything', async () => {
    const store = new InMemoryStateStore();
    await store.createSession('h2', { agentType: 'a' });
    await store.appendMessages('h2', [user('m1')]);
    await loadHistory(store, 'h2');
    await store.appendMessages('h2', [user('other')]);
    await store.appendMessages('h2', [user('m2')]);
    const appended = (await store.getMessages('h2', { offset: 2 })).messages;
    expect(noteCommittedMessages(store, 'h2', { messageCount: 3, appended })).toBe(false);
    expect(cachedHistory(store, 'h2')).toBeUndefined();
    expect((await loadHistory(store, 'h2')).map((message) => message.id)).toEqual(['m1', 'other', 'm2']);
  });

  it('reports nothing known for a session this process never read (a recovered workflow reads)', () => {
    const store = new InMemoryStateStore();
    expect(noteCommittedMessages(store, 'never-read', { messageCount: 2, appended: [] })).toBe(false);
    expect(cachedHistory(store, 'never-read')).toBeUndefined();
  });
});
