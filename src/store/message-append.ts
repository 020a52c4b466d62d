import { randomUUID } from 'node:crypto';
import type { Message, StoredMessage } from '../types/message.js';
import { cloneJson } from '../database/json.js';
import { assertIdentifier } from './validation.js';

/**
 * Turn messages to append into stored messages: deep-copied (InvalidArgumentError when not
 * JSON-serializable), ids assigned where missing, messages whose id is in `existingIds` (or repeated within
 * the batch) dropped, and contiguous sequences assigned from `currentCount + 1`.
 *
 * @example
 * const rows = prepareMessagesForAppend(messages, new Set(['run-1:1:0']), 4); // sequences 5, 6, …
 */
export function prepareMessagesForAppend(
  messages: readonly Message[],
  existingIds: ReadonlySet<string>,
  currentCount: number,
): StoredMessage[] {
  if (!Array.isArray(messages)) throw new TypeError('messages must be an array');
  const seen = new Set(existingIds);
  const prepared: StoredMessage[] = [];
  messages.forEach((message, index) => {
    const copy = cloneJson(message, `messages[${index}]`);
    const id = copy.id ?? randomUUID();
    assertIdentifier(id, `messages[${index}].id`);
    if (seen.has(id)) return;
    seen.add(id);
    prepared.push({ ...copy, id, sequence: currentCount + prepared.length + 1 });
  });
  return prepared;
}

/**
 * The ids carried by `messages` (those that have one), for an existence lookup before appending.
 *
 * @example
 * const ids = messageIdsOf(messages); // ['run-1:1:0', 'run-1:1:1']
 */
export function messageIdsOf(messages: readonly Message[]): string[] {
  return messages.flatMap((message) => (typeof message.id === 'string' ? [message.id] : []));
}

/**
 * Give every message without an `id` a random one, before a retried write, so each attempt appends the same
 * ids (an attempt that did commit makes the next one skip them instead of appending copies).
 *
 * @example
 * const stable = withMessageIds(messages); // then retry appends of `stable` freely
 */
export function withMessageIds(messages: readonly Message[]): Message[] {
  if (!Array.isArray(messages)) return messages as Message[]; // prepareMessagesForAppend reports it
  return messages.map((message) => (typeof message === 'object' && message !== null && message.id === undefined ? { ...message, id: randomUUID() } : message));
}
