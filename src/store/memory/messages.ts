import type { Message, StoredMessage } from '../../types/message.js';
import type { GetMessagesOptions, GetMessagesResult } from '../../types/session.js';
import { cloneJson } from '../../database/json.js';
import { prepareMessagesForAppend } from '../message-append.js';
import { assertNonNegativeInteger } from '../validation.js';
import type { MemoryData, MemorySessionRecord } from './memory-data.js';

/**
 * The stored messages `messages` would add to `record` (ids already present skipped), without writing.
 *
 * @example
 * const rows = planMemoryAppend(record, messages);
 */
export function planMemoryAppend(record: MemorySessionRecord, messages: readonly Message[]): StoredMessage[] {
  const existingIds = new Set(record.messages.map((message) => message.id));
  return prepareMessagesForAppend(messages, existingIds, record.messages.length);
}

/**
 * Append messages in order (idempotent by id); returns the new total.
 *
 * @example
 * const total = appendMemoryMessages(data, 's1', [{ role: 'user', content: 'Hi' }]);
 */
export function appendMemoryMessages(data: MemoryData, sessionId: string, messages: Message[]): number {
  const record = data.require(sessionId);
  const rows = planMemoryAppend(record, messages);
  record.messages.push(...rows);
  return record.messages.length;
}

/**
 * A page of messages in sequence order, with the total and whether more follow.
 *
 * @example
 * const { messages, total, hasMore } = getMemoryMessages(data, 's1', { offset: 10, limit: 10 });
 */
export function getMemoryMessages(data: MemoryData, sessionId: string, options: GetMessagesOptions = {}): GetMessagesResult {
  assertNonNegativeInteger(options.offset, 'offset', { optional: true });
  assertNonNegativeInteger(options.limit, 'limit', { optional: true });
  const all = data.find(sessionId)?.messages ?? [];
  const offset = options.offset ?? 0;
  const end = options.limit === undefined ? all.length : offset + options.limit;
  const messages = cloneJson(all.slice(offset, end), 'messages');
  return { messages, total: all.length, hasMore: offset + messages.length < all.length };
}

/**
 * How many messages the session has (0 when it does not exist).
 *
 * @example
 * const count = getMemoryMessageCount(data, 's1');
 */
export function getMemoryMessageCount(data: MemoryData, sessionId: string): number {
  return data.find(sessionId)?.messages.length ?? 0;
}

/**
 * Keep the first `count` messages.
 *
 * @example
 * truncateMemoryMessages(data, 's1', 4);
 */
export function truncateMemoryMessages(data: MemoryData, sessionId: string, count: number): void {
  assertNonNegativeInteger(count, 'count');
  const record = data.require(sessionId);
  record.messages = record.messages.slice(0, count);
}
