import type { SessionStateStore } from '../store/state-store.js';
import type { StoredMessage } from '../types/message.js';
import { rememberNewest } from '../orchestration/bounded-map.js';

/** Sessions whose history this process keeps (least recently used are dropped first). */
const MAX_CACHED_SESSIONS = 256;

const cache = new Map<string, { store: SessionStateStore; messages: StoredMessage[] }>();

/**
 * The session's full message history, read incrementally: a session this process read before only fetches
 * the messages appended since (plus the last known one, to detect truncation or rewrites). This keeps an
 * agent step's cost flat as history grows.
 */
export async function loadHistory(store: SessionStateStore, sessionId: string): Promise<StoredMessage[]> {
  const cached = cache.get(sessionId);
  if (cached !== undefined && cached.store === store && cached.messages.length > 0) {
    const known = cached.messages.length;
    const tail = await store.getMessages(sessionId, { offset: known - 1 });
    const anchor = tail.messages[0];
    if (tail.total >= known && anchor !== undefined && anchor.id === cached.messages[known - 1]?.id) {
      const messages = [...cached.messages, ...tail.messages.slice(1)];
      remember(sessionId, store, messages);
      return messages;
    }
  }
  const { messages } = await store.getMessages(sessionId);
  remember(sessionId, store, messages);
  return messages;
}

/**
 * Extend a session's cached history by the messages a step commit just appended (its report), so the next read
 * needs no query. Forgets the session instead when the cache does not line up with the commit's message count
 * (another writer appended, or the cache is older), so the next `loadHistory` reads.
 *
 * @example
 * if (report !== undefined) noteCommittedMessages(stateStore, sessionId, report);
 */
export function noteCommittedMessages(
  store: SessionStateStore,
  sessionId: string,
  report: { messageCount: number; appended: readonly StoredMessage[] },
): boolean {
  const cached = cache.get(sessionId);
  if (cached === undefined || cached.store !== store) return false;
  const known = cached.messages.length;
  const lined = known + report.appended.length === report.messageCount && report.appended.every((message, index) => message.sequence === known + index + 1);
  if (!lined) {
    cache.delete(sessionId);
    return false;
  }
  if (report.appended.length > 0) remember(sessionId, store, [...cached.messages, ...report.appended]);
  return true;
}

/**
 * The cached history of a session when it is known current (right after {@link noteCommittedMessages} returned
 * true), without a query.
 *
 * @example
 * const history = cachedHistory(stateStore, sessionId) ?? (await loadHistory(stateStore, sessionId));
 */
export function cachedHistory(store: SessionStateStore, sessionId: string): StoredMessage[] | undefined {
  const cached = cache.get(sessionId);
  return cached !== undefined && cached.store === store ? cached.messages : undefined;
}

/** Forget a session's cached history (after truncation by resume/retry/branch). */
export function forgetHistory(sessionId: string): void {
  cache.delete(sessionId);
}

function remember(sessionId: string, store: SessionStateStore, messages: StoredMessage[]): void {
  rememberNewest(cache, sessionId, { store, messages }, MAX_CACHED_SESSIONS);
}
