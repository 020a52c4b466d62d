import { DBOS } from '@dbos-inc/dbos-sdk';
import { companionTopic, type CompanionDoneMessage } from '../orchestration/companions.js';
import { PERSISTENT_INBOX_TOPIC, type PersistentInboxMessage } from '../orchestration/persistent-session.js';
import { warmReceive } from './warm-waits.js';

/** A client's answer to a pending call was stored: the owner workflow re-reads the store (the source of truth). */
export interface SubmittedMessage {
  kind: 'submitted';
  toolCallId: string;
}

/** Re-check the store now (an interrupt or an abort arrived while the run waits). */
export interface WakeMessage {
  kind: 'wake';
}

/** What a run waiting on a human-answered call can receive on that call's topic. */
export type CallMessage = SubmittedMessage | WakeMessage;

/**
 * A typed DBOS message channel: the topic and payload of one kind of message workflows exchange, declared once
 * and used by both sender and receiver.
 */
export interface WorkflowChannel<TKey, TMessage> {
  /** The DBOS topic for `key`. */
  topic(key: TKey): string;
  /** Send `message` to `workflowId` (an `idempotencyKey` makes repeated sends deliver once). */
  send(workflowId: string, key: TKey, message: TMessage, idempotencyKey?: string): Promise<void>;
  /** Workflow-body only: wait up to `timeoutMs` for a message; `null` on timeout (see `warmReceive`). */
  receive(key: TKey, timeoutMs: number): Promise<TMessage | null>;
}

/** `wakeable`: `executor.close()` may end a wait on this channel with a `CloseWakeMessage` (see `warmReceive`). */
function defineChannel<TKey, TMessage>(topic: (key: TKey) => string, wakeable = true): WorkflowChannel<TKey, TMessage> {
  return {
    topic,
    async send(workflowId, key, message, idempotencyKey) {
      await DBOS.send(workflowId, message, topic(key), idempotencyKey);
    },
    async receive(key, timeoutMs) {
      return warmReceive<TMessage>(topic(key), timeoutMs, wakeable);
    },
  };
}

/**
 * Messages about one human-answered call, on the topic `toolCallId`: `submitted` from submitToolResult (idempotency
 * key `${workflowId}:${toolCallId}`), `wake` from interrupt/abort. The store holds the answer; the message only
 * wakes the waiting run, so a lost message costs one recv timeout, never a result.
 */
export const callChannel: WorkflowChannel<string, CallMessage> = defineChannel((toolCallId: string) => toolCallId);

/**
 * Tell the workflow that owns a pending call that its answer is stored. Delivered once per (workflow, call).
 *
 * @example
 * await notifySubmitted(ownerWorkflowId, toolCallId);
 */
export async function notifySubmitted(workflowId: string, toolCallId: string): Promise<void> {
  await callChannel.send(workflowId, toolCallId, { kind: 'submitted', toolCallId }, `${workflowId}:${toolCallId}`);
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

/** A sub-agent run ended or parked: the parent fetches its result from DBOS (the message only wakes it). */
export interface ChildDoneMessage {
  kind: 'child_done';
  childSessionId: string;
}

/**
 * Messages from a sub-agent run to the parent run waiting for it, on the topic `child:${callId}`. Sent from the
 * child's workflow body (exactly once per child run).
 */
export const childDoneChannel: WorkflowChannel<string, ChildDoneMessage> = defineChannel((callId: string) => `child:${callId}`);

/**
 * A persistent session's inbox (topic `persistent-inbox`): one message per turn, sent by `execute()`/`resume()`
 * with the turn's runId as idempotency key; received in send order by the session's workflow. Never woken by
 * `executor.close()`, which sends `shutdown` here instead (a drain reads `null` as "inbox empty").
 */
export const persistentInbox: WorkflowChannel<void, PersistentInboxMessage> = defineChannel(() => PERSISTENT_INBOX_TOPIC, false);

/**
 * A companion's turn ended (topic `companion:${childSessionId}`): sent to its parent's current run by the child's
 * report step (idempotency key `${childSessionId}:${runId}`). It only wakes the parent, which reads the run record.
 */
export const companionDoneChannel: WorkflowChannel<string, CompanionDoneMessage> = defineChannel(companionTopic);
