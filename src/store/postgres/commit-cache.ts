import type { SessionState } from '../../types/session.js';
import { rememberNewest } from '../../orchestration/bounded-map.js';

/**
 * What a step commit left a session as, known to the process that committed it: enough for the session's next step
 * commit to skip its locked read and write optimistically, guarded by `xmin` (the committing transaction's id: any
 * later write of the session row by anyone changes it, and the guard then fails the commit, which reads instead).
 *
 * @example
 * const known: CommittedSession = { xmin: '7410', state, messageCount: 12, chainBytes: 0 };
 */
export interface CommittedSession {
  /** The id of the transaction that wrote the session row last (its `xmin`), as text. */
  xmin: string;
  /** The session as that commit wrote it; its customState is the commit's own copy, shared with no caller. */
  state: SessionState;
  messageCount: number;
  /** `chain_bytes` of the checkpoint the state points at (0 for a snapshot or none): the next delta's chain starts there. */
  chainBytes: number;
}

/** Sessions remembered per store (the least recently committed go first). */
const MAX_REMEMBERED_SESSIONS = 512;

/**
 * The sessions this process's step commits left behind, one entry per session, each taken by the session's next
 * commit (used once: a commit that fails or whose outcome is unknown leaves nothing to trust).
 *
 * @example
 * const known = cache.take(sessionId); // undefined: read under the lock as usual
 */
export class CommitCache {
  readonly #sessions = new Map<string, CommittedSession>();

  /** The session's entry, removed. */
  take(sessionId: string): CommittedSession | undefined {
    const known = this.#sessions.get(sessionId);
    this.#sessions.delete(sessionId);
    return known;
  }

  /** Remember what a read found, unless a step commit of this process left something already. */
  rememberIfAbsent(sessionId: string, known: CommittedSession): void {
    if (!this.#sessions.has(sessionId)) this.remember(sessionId, known);
  }

  /** Remember what a committed step commit wrote. */
  remember(sessionId: string, known: CommittedSession): void {
    rememberNewest(this.#sessions, sessionId, known, MAX_REMEMBERED_SESSIONS);
  }
}
