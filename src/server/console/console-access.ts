import type { SessionState } from '../../types/session.js';
import type { ServerContext } from '../server-context.js';
import { AgentServerHttpError, sessionNotFound } from '../server-errors.js';
import type { AgentServerPrincipal } from '../server-options.js';
import { sessionIdSchema } from '../wire-schemas.js';

/**
 * A session the console may show, with the root of its tree (the session itself for a top-level one).
 *
 * @example
 * const { state, root } = await consoleSession(context, principal, 's1');
 */
export interface ConsoleSessionAccess {
  state: SessionState;
  root: SessionState;
}

/**
 * The session `sessionId` when `principal` owns it. A top-level session is owned as every route owns it (its `userId`
 * is the principal's); a sub-agent or companion session (created without a user) belongs to whoever owns its root.
 * Anything else, a malformed id included, is the same 404 `SESSION_NOT_FOUND`.
 *
 * @throws AgentServerHttpError 404 `SESSION_NOT_FOUND`.
 * @example
 * const { state } = await consoleSession(context, c.get('principal'), c.req.param('sessionId'));
 */
export async function consoleSession(
  context: ServerContext,
  principal: AgentServerPrincipal | null,
  sessionId: string | undefined,
): Promise<ConsoleSessionAccess> {
  const id = sessionIdSchema.safeParse(sessionId);
  if (!id.success) throw sessionNotFound();
  return context.ownedTreeSession(principal, id.data);
}

/**
 * Refuse run control of a sub-agent's session: interrupt, abort, resume, retry and branch act on the root, whose
 * cascade reaches the tree.
 *
 * @throws AgentServerHttpError 409 `NOT_A_ROOT_SESSION`.
 * @example
 * requireRoot(state);
 */
export function requireRoot(state: SessionState): void {
  if (state.parentSessionId === undefined) return;
  throw new AgentServerHttpError(409, 'NOT_A_ROOT_SESSION', "This is a sub-agent's session: act on its root session, which cascades to the tree.");
}
