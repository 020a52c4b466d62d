import { companionTopic, type CompanionDoneMessage } from '../orchestration/companions.js';
import { defineChannel, type WorkflowChannel } from './channel.js';

/**
 * A companion's turn ended (topic `companion:${childSessionId}`): sent to its parent's current run by the child's
 * report step. It only wakes the parent, which reads the run record.
 *
 * @example
 * companionDoneChannel.topic('s1-agent-r'); // 'companion:s1-agent-r'
 */
export const companionDoneChannel: WorkflowChannel<string, CompanionDoneMessage> = defineChannel(companionTopic);

/**
 * Wake the parent's run `parentWorkflowId` that may wait for the companion's turn: keyed
 * `${childSessionId}:${runId}`, so a re-run of the sending step delivers it once.
 *
 * @example
 * await notifyCompanionDone(parentRun.workflowId, { kind: 'companion_done', childSessionId, runId });
 */
export async function notifyCompanionDone(parentWorkflowId: string, message: CompanionDoneMessage): Promise<void> {
  const idempotencyKey = `${message.childSessionId}:${message.runId}`;
  await companionDoneChannel.send(parentWorkflowId, message.childSessionId, message, idempotencyKey);
}
