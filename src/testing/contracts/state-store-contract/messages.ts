import { describe, expect, it } from 'vitest';
import type { Message } from '../../../types/message.js';
import { expectCode, type ContractContext } from './context.js';

const userMessages = (count: number, prefix = 'm'): Message[] =>
  Array.from({ length: count }, (_, index) => ({ id: `${prefix}${index + 1}`, role: 'user', content: `message ${index + 1}` }));

/**
 * Contract: message order, paging, truncation and idempotent appends.
 *
 * @example
 * defineMessageContract(context);
 */
export function defineMessageContract(context: ContractContext): void {
  describe('messages', () => {
    it('appends in order with 1-based sequences, assigns missing ids and returns the total', async () => {
      const { sessionId: id } = await context.createSession('append');
      expect(await context.store.appendMessages(id, [{ role: 'user', content: 'first', createdAt: 5, metadata: { a: 1 } }])).toBe(1);
      expect(
        await context.store.appendMessages(id, [
          { role: 'assistant', content: 'second', thinking: 'hmm', toolCalls: [{ id: 'c1', name: 'search', arguments: { q: 'x' } }] },
          { role: 'tool', toolCallId: 'c1', toolName: 'search', content: [{ hit: 1 }], isError: false },
        ]),
      ).toBe(3);
      const { messages, total, hasMore } = await context.store.getMessages(id);
      expect(total).toBe(3);
      expect(hasMore).toBe(false);
      expect(messages.map((message) => message.sequence)).toEqual([1, 2, 3]);
      expect(new Set(messages.map((message) => message.id)).size).toBe(3);
      expect(messages[0]).toMatchObject({ role: 'user', content: 'first', createdAt: 5, metadata: { a: 1 } });
      expect(messages[1]).toMatchObject({ role: 'assistant', thinking: 'hmm', toolCalls: [{ id: 'c1', name: 'search', arguments: { q: 'x' } }] });
      expect(messages[2]).toMatchObject({ role: 'tool', toolCallId: 'c1', content: [{ hit: 1 }], isError: false });
      expect(await context.store.getMessageCount(id)).toBe(3);
    });

    it('pages with offset and limit and reports hasMore', async () => {
      const { sessionId: id } = await context.createSession('paging');
      await context.store.appendMessages(id, userMessages(7));
      const page = await context.store.getMessages(id, { offset: 2, limit: 3 });
      expect(page.messages.map((message) => message.id)).toEqual(['m3', 'm4', 'm5']);
      expect(page).toMatchObject({ total: 7, hasMore: true });
      expect(await context.store.getMessages(id, { offset: 5, limit: 10 })).toMatchObject({ total: 7, hasMore: false });
      expect((await context.store.getMessages(id, { offset: 5 })).messages.map((message) => message.id)).toEqual(['m6', 'm7']);
      expect(await context.store.getMessages(id, { limit: 0 })).toEqual({ messages: [], total: 7, hasMore: true });
      expect(await context.store.getMessages(id, { offset: 50 })).toEqual({ messages: [], total: 7, hasMore: false });
      await expectCode(context.store.getMessages(id, { limit: -1 }), 'INVALID_ARGUMENT');
      await expectCode(context.store.getMessages(id, { offset: 1.5 }), 'INVALID_ARGUMENT');
      expect(await context.store.getMessages(context.sessionId('missing'))).toEqual({ messages: [], total: 0, hasMore: false });
    });

    it('skips messages whose id already exists (also within one batch)', async () => {
      const { sessionId: id } = await context.createSession('idempotent');
      await context.store.appendMessages(id, userMessages(2));
      expect(
        await context.store.appendMessages(id, [
          { id: 'm2', role: 'user', content: 'retry of m2' },
          { id: 'm3', role: 'user', content: 'new' },
          { id: 'm3', role: 'user', content: 'duplicate in batch' },
        ]),
      ).toBe(3);
      const { messages } = await context.store.getMessages(id);
      expect(messages.map((message) => [message.id, message.sequence, message.content])).toEqual([
        ['m1', 1, 'message 1'],
        ['m2', 2, 'message 2'],
        ['m3', 3, 'new'],
      ]);
    });

    it('truncateMessages keeps a prefix; later appends continue the sequence', async () => {
      const { sessionId: id } = await context.createSession('truncate');
      await context.store.appendMessages(id, userMessages(5));
      await context.store.truncateMessages(id, 2);
      expect(await context.store.getMessageCount(id)).toBe(2);
      expect(await context.store.appendMessages(id, [{ id: 'm4', role: 'user', content: 'again' }])).toBe(3);
      const { messages } = await context.store.getMessages(id);
      expect(messages.map((message) => [message.id, message.sequence])).toEqual([
        ['m1', 1],
        ['m2', 2],
        ['m4', 3],
      ]);
      await context.store.truncateMessages(id, 10);
      expect(await context.store.getMessageCount(id)).toBe(3);
      await expectCode(context.store.truncateMessages(id, -1), 'INVALID_ARGUMENT');
    });

    it('rejects non-JSON content and unknown sessions without writing', async () => {
      const { sessionId: id } = await context.createSession('append-invalid');
      const bad = [{ role: 'user', content: 'ok' }, { role: 'tool', toolCallId: 'c', toolName: 't', content: 1n }] as Message[];
      await expectCode(context.store.appendMessages(id, bad), 'INVALID_ARGUMENT');
      expect(await context.store.getMessageCount(id)).toBe(0);
      await expectCode(context.store.appendMessages(context.sessionId('missing'), userMessages(1)), 'SESSION_NOT_FOUND');
    });

    it('concurrent appends get distinct contiguous sequences', async () => {
      const { sessionId: id } = await context.createSession('append-race');
      await Promise.all(Array.from({ length: 10 }, (_, index) => context.store.appendMessages(id, userMessages(2, `w${index}-`))));
      const { messages, total } = await context.store.getMessages(id);
      expect(total).toBe(20);
      expect(messages.map((message) => message.sequence)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    });
  });
}
