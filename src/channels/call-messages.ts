import { defineChannel, type WorkflowChannel } from './channel.js';

/**
 * A client's answer to a pending call was stored: the owner workflow re-reads the store (the source of truth).
 *
 * @example
 * const message: SubmittedMessage = { kind: 'submitted', toolCallId: 'call-1' };
 */
export interface SubmittedMessage {
  kind: 'submitted';
  toolCallId: string;
}

/**
 * Re-check the store now (an interrupt or an abort arrived while the run waits).
 *
 * @example
 * const message: WakeMessage = { kind: 'wake' };
 */
export interface WakeMessage {
  kind: 'wake';
}

/**
 * What a run waiting on a human-answered call can receive on that call's topic.
 *
 * @example
 * const message: CallMessage | null = await callReceiver.receive(toolCallId, 60_000);
 */
export type CallMessage = SubmittedMessage | WakeMessage;

/**
 * Messages about one human-answered call, on the topic `toolCallId`: `submitted` from submitToolResult (idempotency
 * key `${workflowId}:${toolCallId}`), `wake` from interrupt/abort. The store holds the answer; the message only
 * wakes the waiting run, so a lost message costs one recv timeout, never a result.
 *
 * @example
 * callChannel.topic('call-1'); // 'call-1'
 */
export const callChannel: WorkflowChannel<string, CallMessage> = defineChannel((toolCallId: string) => toolCallId);

/**
 * Tell the workflow that owns a pending call that its answer is stored. Delivered once per (workflow, call).
 *
 * @example
 * await notifySubmitted(ownerWorkflowId, toolCallId);
 */
export async function notifySubmitted(workflowId: string, toolCallId: string): Promise<void> {
  const message: SubmittedMessage = { kind: 'submitted', toolCallId };
  await callChannel.send(workflowId, toolCallId, message, `${workflowId}:${toolCallId}`);
}

/**
 * Wake a workflow blocked on a call so it re-checks the store (interrupt flag, cancellation).
 *
 * @example
 * await wakeCallWaiter(workflowId, toolCallId);
 */
export async function wakeCallWaiter(workflowId: string, toolCallId: string): Promise<void> {
  await callChannel.send(workflowId, toolCallId, { kind: 'wake' });
}
