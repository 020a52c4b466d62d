import { defineChannel, type WorkflowChannel } from './channel.js';

/**
 * A sub-agent run ended or parked: the parent fetches its result from DBOS (the message only wakes it).
 *
 * @example
 * const message: ChildDoneMessage = { kind: 'child_done', childSessionId: 's1-sub-call-1' };
 */
export interface ChildDoneMessage {
  kind: 'child_done';
  childSessionId: string;
}

/**
 * Messages from a sub-agent run to the parent run waiting for it, on the topic `child:${callId}`. Sent from the
 * child's workflow body (exactly once per child run).
 *
 * @example
 * childDoneChannel.topic('call-1'); // 'child:call-1'
 */
export const childDoneChannel: WorkflowChannel<string, ChildDoneMessage> = defineChannel((callId: string) => `child:${callId}`);

/**
 * Child workflow body: tell the parent's workflow that the child run for call `callId` ended (no idempotency key:
 * the body sends it once, and DBOS records the send).
 *
 * @example
 * await notifyChildDone(input.parent.workflowId, input.parent.callId, input.sessionId);
 */
export async function notifyChildDone(parentWorkflowId: string, callId: string, childSessionId: string): Promise<void> {
  await childDoneChannel.send(parentWorkflowId, callId, { kind: 'child_done', childSessionId });
}
