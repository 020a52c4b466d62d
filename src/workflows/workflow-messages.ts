import { callChannel, type CallMessage } from '../channels/call-messages.js';
import type { WorkflowChannel } from '../channels/channel.js';
import { childDoneChannel, type ChildDoneMessage } from '../channels/child-done.js';
import { companionDoneChannel } from '../channels/companion-done.js';
import { persistentInbox } from '../channels/persistent-inbox.js';
import type { CompanionDoneMessage } from '../orchestration/companions.js';
import type { PersistentInboxMessage } from '../orchestration/persistent-session.js';
import { warmReceive } from './warm-waits.js';

/**
 * The receive side of a channel declared in `src/channels/` (which holds the send side): a workflow body waits
 * on the channel's topic — warm, known to `executor.close()` when the channel is wakeable.
 *
 * @example
 * const message = await childDoneReceiver.receive(toolCallId, 60_000);
 */
export interface ChannelReceiver<TKey, TMessage> {
  /** Workflow-body only: wait up to `timeoutMs` for a message; `null` on timeout (see `warmReceive`). */
  receive(key: TKey, timeoutMs: number): Promise<TMessage | null>;
}

function receiverOf<TKey, TMessage>(channel: WorkflowChannel<TKey, TMessage>): ChannelReceiver<TKey, TMessage> {
  return {
    receive: (key, timeoutMs) => warmReceive<TMessage>(channel.topic(key), timeoutMs, channel.wakeable),
  };
}

/**
 * A run waiting on a human-answered call hears `submitted`/`wake` here (see `callChannel`).
 *
 * @example
 * await callReceiver.receive(toolCallId, wakeAt - now);
 */
export const callReceiver: ChannelReceiver<string, CallMessage> = receiverOf(callChannel);

/**
 * A parent run waits here for its sub-agent call's child to end (see `childDoneChannel`).
 *
 * @example
 * const woken = await childDoneReceiver.receive(call.toolCallId, 60_000);
 */
export const childDoneReceiver: ChannelReceiver<string, ChildDoneMessage> = receiverOf(childDoneChannel);

/**
 * A persistent session's workflow reads its inbox here, in send order (see `persistentInbox`; not wakeable).
 *
 * @example
 * const received = await persistentInboxReceiver.receive(undefined, closeAt - now);
 */
export const persistentInboxReceiver: ChannelReceiver<void, PersistentInboxMessage> = receiverOf(persistentInbox);

/**
 * A parent run waits here for a companion's turn to end (see `companionDoneChannel`).
 *
 * @example
 * await companionDoneReceiver.receive(childSessionId, 60_000);
 */
export const companionDoneReceiver: ChannelReceiver<string, CompanionDoneMessage> = receiverOf(companionDoneChannel);
