import {
  PERSISTENT_INBOX_TOPIC,
  type PersistentInboxMessage,
  type PersistentShutdownMessage,
  type PersistentTurnMessage,
} from '../orchestration/persistent-session.js';
import { defineChannel, type WorkflowChannel } from './channel.js';

/**
 * A persistent session's inbox (topic `persistent-inbox`): one message per turn, sent by `execute()`/`resume()`
 * or a companion call with the turn's runId as idempotency key; received in send order by the session's workflow.
 * Never woken by `executor.close()`, which sends `shutdown` here instead (a drain reads `null` as "inbox empty").
 *
 * @example
 * persistentInbox.topic(undefined); // 'persistent-inbox'
 */
export const persistentInbox: WorkflowChannel<void, PersistentInboxMessage> = defineChannel(() => PERSISTENT_INBOX_TOPIC, {
  wakeable: false,
});

/**
 * Put a turn into the inbox of the session workflow `workflowId`, keyed by the turn's runId (delivered and run at
 * most once, however often it is sent).
 *
 * @example
 * await sendInboxTurn(marker.workflowId, { kind: 'turn', runId, userMessage });
 */
export async function sendInboxTurn(workflowId: string, message: PersistentTurnMessage): Promise<void> {
  await persistentInbox.send(workflowId, undefined, message, message.runId);
}

/**
 * `executor.close()`: ask the session workflow `workflowId` to end after its current turn (end reason `shutdown`).
 *
 * @example
 * await requestShutdown(workflowId, `close:${randomUUID()}`);
 */
export async function requestShutdown(workflowId: string, idempotencyKey: string): Promise<void> {
  const message: PersistentShutdownMessage = { kind: 'shutdown' };
  await persistentInbox.send(workflowId, undefined, message, idempotencyKey);
}
