import { DBOS } from '@dbos-inc/dbos-sdk';

/**
 * The send side of one kind of message workflows exchange: its DBOS topic and a typed send, declared once. The
 * receive side (`src/workflows/workflow-messages.ts`) is built from the same declaration, so sender and receiver
 * cannot disagree on the topic. This module is the only place in `src/` that calls `DBOS.send` (a lint rule).
 *
 * @example
 * await childDoneChannel.send(parentWorkflowId, callId, { kind: 'child_done', childSessionId });
 */
export interface WorkflowChannel<TKey, TMessage> {
  /** The DBOS topic for `key`. */
  topic(key: TKey): string;
  /**
   * True when `executor.close()` may end a wait on this channel with a `CloseWakeMessage` (see `warmReceive`);
   * false for the persistent inbox, which close() asks to end with a `shutdown` message instead.
   */
  readonly wakeable: boolean;
  /** Send `message` to `workflowId` (an `idempotencyKey` makes repeated sends deliver once). */
  send(workflowId: string, key: TKey, message: TMessage, idempotencyKey?: string): Promise<void>;
}

/**
 * Options of {@link defineChannel}.
 *
 * @example
 * const options: ChannelOptions = { wakeable: false };
 */
export interface ChannelOptions {
  /** See `WorkflowChannel.wakeable`. Default true. */
  wakeable?: boolean;
}

/**
 * Declare a channel: its topic function and message type. Sends go through `DBOS.send` (from a workflow body, a
 * step or outside DBOS alike), with the idempotency key the caller passes.
 *
 * @example
 * const doneChannel = defineChannel<string, DoneMessage>((callId) => `done:${callId}`);
 */
export function defineChannel<TKey, TMessage>(topic: (key: TKey) => string, options: ChannelOptions = {}): WorkflowChannel<TKey, TMessage> {
  return {
    topic,
    wakeable: options.wakeable ?? true,
    async send(workflowId, key, message, idempotencyKey) {
      await DBOS.send(workflowId, message, topic(key), idempotencyKey);
    },
  };
}
