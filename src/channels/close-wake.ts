import { defineChannel, type WorkflowChannel } from './channel.js';

/**
 * What `executor.close()` sends a warm wait in progress to end it: the body is held at once (see `warmReceive`).
 * Consumed and recorded like any message; replayed by DBOS recovery in the next process, it reads as a timeout
 * (`null`), so the wait's loop re-checks the store and waits again.
 *
 * @example
 * const message: CloseWakeMessage = { kind: 'helix.close_wake' };
 */
export interface CloseWakeMessage {
  kind: 'helix.close_wake';
}

/**
 * The close wake goes to the topic the workflow waits on (any wakeable channel's topic, as `warmReceive` saw it).
 *
 * @example
 * closeWakeChannel.topic('call-1'); // 'call-1'
 */
export const closeWakeChannel: WorkflowChannel<string, CloseWakeMessage> = defineChannel((waitTopic: string) => waitTopic);

/**
 * `executor.close()`: wake the workflow `workflowId` waiting on `waitTopic` so its wait holds the body.
 *
 * @example
 * await wakeForClose(wait.workflowId, wait.topic, `close:${randomUUID()}`);
 */
export async function wakeForClose(workflowId: string, waitTopic: string, idempotencyKey: string): Promise<void> {
  await closeWakeChannel.send(workflowId, waitTopic, { kind: 'helix.close_wake' }, idempotencyKey);
}

/**
 * True when a received message is the close wake (the receiver holds or reads it as a timeout).
 *
 * @example
 * if (isCloseWakeMessage(message)) return null;
 */
export function isCloseWakeMessage(message: unknown): message is CloseWakeMessage {
  return typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'helix.close_wake';
}
