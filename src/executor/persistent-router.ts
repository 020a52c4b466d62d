import { routePersistentMessage as route, type RouteOptions, type RouteResult, type RouteTransport } from '../steps/persistent-route.js';
import { sendInboxTurn } from '../channels/persistent-inbox.js';
import type { PersistentTurnMessage } from '../orchestration/persistent-session.js';
import type { SessionStateStore } from '../store/state-store.js';
import { startPersistentWorkflow } from '../workflows/persistent.workflow.js';

export { isNonExistentWorkflow, type RouteResult } from '../steps/persistent-route.js';

/** The executor's transport: sends and starts happen at once (outside any workflow step). */
const IMMEDIATE: RouteTransport = {
  send: sendInboxTurn,
  start: async (input) => {
    await startPersistentWorkflow(input);
    return true;
  },
};

/**
 * {@link route | routePersistentMessage} of `steps/persistent-route.ts` with sends and starts made at once.
 *
 * @example
 * await routePersistentMessage(stateStore, sessionId, { kind: 'turn', runId, userMessage }, { restartInput });
 */
export async function routePersistentMessage(
  stateStore: SessionStateStore,
  sessionId: string,
  message: PersistentTurnMessage,
  options: Omit<RouteOptions, 'transport'>,
): Promise<RouteResult> {
  return route(stateStore, sessionId, message, { ...options, transport: IMMEDIATE });
}
