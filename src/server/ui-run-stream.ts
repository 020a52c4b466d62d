import { createUIMessageStream, type FinishReason, type UIMessage, type UIMessageChunk } from 'ai';
import type { AgentExecutionHandle } from '../executor/types.js';
import type { StreamChunk } from '../types/stream.js';
import type { ServerContext } from './server-context.js';
import { UIMessageChunkMapper, type KnownToolCalls } from './ui-message-chunks.js';

const TERMINAL = new Set<StreamChunk['type']>(['output', 'error', 'run_interrupted']);
/** How long to wait for the announcement chunks of calls a run already waits for. */
const ANNOUNCE_GRACE_MS = 3_000;

/** @internal What to stream: a run's chunks after `fromSequence`, as one assistant UI message. */
export interface UIRunStreamInput {
  handle: AgentExecutionHandle;
  streamId: string;
  fromSequence: number;
  messageId?: string;
  knownToolCalls?: KnownToolCalls;
  /** The client's messages when the stream continues their last (assistant) message: it keeps its id. */
  originalMessages?: UIMessage[];
  /** Aborts when the client goes away: reading stops, the run does not. */
  signal: AbortSignal;
}

type Step = { kind: 'chunk'; result: IteratorResult<StreamChunk> } | { kind: 'waiting'; toolCallIds: string[] | undefined } | { kind: 'grace' };

/**
 * @internal The run as an AI SDK UI message stream (built by `ai`'s `createUIMessageStream`). It ends with
 * the run, or — finish reason `tool-calls` — once the run waits for client tool results or approvals and
 * every awaited call has been sent to the client.
 */
export function uiRunStream(context: ServerContext, input: UIRunStreamInput): ReadableStream<UIMessageChunk> {
  return createUIMessageStream({
    onError: () => 'The agent stream failed.',
    ...(input.originalMessages === undefined ? {} : { originalMessages: input.originalMessages }),
    execute: async ({ writer }) => {
      const reader = await context.options.streamManager.createReader(input.streamId, input.fromSequence);
      const close = (): void => void reader.close().catch(() => undefined);
      if (input.signal.aborted) close();
      else input.signal.addEventListener('abort', close, { once: true });
      const mapper = new UIMessageChunkMapper({ rootAgentId: input.handle.sessionId, ...(input.knownToolCalls === undefined ? {} : { knownToolCalls: input.knownToolCalls }) });
      for (const part of mapper.start(input.messageId)) writer.write(part);
      const announced = new Set(Object.keys(input.knownToolCalls ?? {}));
      const never = new Promise<never>(() => undefined);
      let waiting: Promise<Step> = input.handle.result().then(
        (result): Step => ({ kind: 'waiting', toolCallIds: result.status === 'suspended_client_tool' ? (result.suspended?.toolCallIds ?? []) : undefined }),
        (): Step => ({ kind: 'waiting', toolCallIds: undefined }),
      );
      let grace: Promise<Step> = never;
      let awaited: string[] | undefined;
      let finishReason: FinishReason | undefined;
      const iterator = reader[Symbol.asyncIterator]();
      let next = iterator.next();
      try {
        for (;;) {
          const step = await Promise.race([next.then((result): Step => ({ kind: 'chunk', result })), waiting, grace]);
          if (step.kind === 'grace') {
            finishReason = 'tool-calls';
            break;
          }
          if (step.kind === 'waiting') {
            waiting = never;
            if (step.toolCallIds === undefined) continue; // the run ended: its last chunks are on their way
            awaited = step.toolCallIds;
            grace = new Promise<Step>((resolve) => setTimeout(() => resolve({ kind: 'grace' }), ANNOUNCE_GRACE_MS).unref());
          } else {
            if (step.result.done === true) break;
            const chunk = step.result.value;
            for (const part of mapper.map(chunk)) writer.write(part);
            if (chunk.type === 'tool_start' || chunk.type === 'tool_approval_request') announced.add(chunk.toolCallId);
            if (chunk.agentId === input.handle.sessionId && TERMINAL.has(chunk.type)) break;
            next = iterator.next();
          }
          if (awaited !== undefined && awaited.every((id) => announced.has(id))) {
            finishReason = 'tool-calls';
            break;
          }
        }
      } finally {
        input.signal.removeEventListener('abort', close);
        close();
      }
      for (const part of mapper.finish(finishReason)) writer.write(part);
    },
  });
}
