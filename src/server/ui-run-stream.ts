import { createUIMessageStream, type FinishReason, type UIMessage, type UIMessageChunk } from 'ai';
import type { ServerContext } from './server-context.js';
import { openCallsOf } from '../store/open-calls.js';
import { measuredStream } from '../telemetry/agent-spans.js';
import { UIMessageChunkMapper, type KnownToolCalls } from './ui-message-chunks.js';
import { endsRun } from '../stream/run-end.js';

/** Safety net: how often an idle stream re-checks whether its run waits for the client. */
const WAITING_CHECK_MS = 2_000;

/** @internal What to stream: a session's chunks after `fromSequence`, as one assistant UI message. */
export interface UIRunStreamInput {
  sessionId: string;
  streamId: string;
  fromSequence: number;
  messageId?: string;
  knownToolCalls?: KnownToolCalls;
  /** The client's messages when the stream continues their last (assistant) message: it keeps its id. */
  originalMessages?: UIMessage[];
  /** Aborts when the client goes away: reading stops, the run does not. */
  signal: AbortSignal;
}

/**
 * @internal The run as an AI SDK UI message stream (built by `ai`'s `createUIMessageStream`). It ends with
 * the run, or — finish reason `tool-calls` — once every call the run waits for (client tools, approvals)
 * has been sent to the client. The `finish` chunk carries `messageMetadata.lastSequence`, the last stream
 * sequence the message shows: a `POST /chat` that answers the message continues exactly after it.
 * Whether the run waits is checked when a call is announced (and every 2 s), never by polling per chunk.
 */
export function uiRunStream(context: ServerContext, input: UIRunStreamInput): ReadableStream<UIMessageChunk> {
  const { stateStore, streamManager } = context.options;
  return createUIMessageStream({
    onError: () => 'The agent stream failed.',
    ...(input.originalMessages === undefined ? {} : { originalMessages: input.originalMessages }),
    execute: async ({ writer }) => {
      const reader = await streamManager.createReader(input.streamId, input.fromSequence);
      const close = (): void => void reader.close().catch(() => undefined);
      if (input.signal.aborted) close();
      else input.signal.addEventListener('abort', close, { once: true });
      const mapper = new UIMessageChunkMapper({
        rootAgentId: input.sessionId,
        ...(input.knownToolCalls === undefined ? {} : { knownToolCalls: input.knownToolCalls }),
      });
      for (const part of mapper.start(input.messageId)) writer.write(part);
      const announced = new Set(Object.keys(input.knownToolCalls ?? {}));
      const waitsForClient = async (): Promise<boolean> => {
        const state = await stateStore.loadState(input.sessionId);
        const open = state === null ? [] : openCallsOf(state);
        return open.length > 0 && open.every((entry) => announced.has(entry.toolCallId));
      };
      let lastSequence = input.fromSequence;
      let finishReason: FinishReason | undefined = (await waitsForClient()) ? 'tool-calls' : undefined;
      let timer: NodeJS.Timeout | undefined;
      const tick = (): Promise<'tick'> => new Promise((resolve) => (timer = setTimeout(() => resolve('tick'), WAITING_CHECK_MS)));
      const iterator = measuredStream(reader)[Symbol.asyncIterator]();
      let next = iterator.next();
      let ticking = tick();
      try {
        while (finishReason === undefined) {
          const step = await Promise.race([next, ticking]);
          if (step === 'tick') {
            ticking = tick();
            if (await waitsForClient()) finishReason = 'tool-calls';
            continue;
          }
          if (step.done === true) break;
          const chunk = step.value;
          lastSequence = chunk.sequence;
          for (const part of mapper.map(chunk)) writer.write(part);
          if (endsRun(chunk, input.sessionId)) break;
          if (chunk.type === 'tool_start' || chunk.type === 'tool_approval_request') announced.add(chunk.toolCallId);
          // The run announces that it waits right after the calls' own chunks: stop after that chunk.
          if (chunk.type === 'run_suspended') {
            for (const call of chunk.calls) announced.add(call.toolCallId);
            if (await waitsForClient()) finishReason = 'tool-calls';
          }
          next = iterator.next();
        }
      } finally {
        clearTimeout(timer);
        input.signal.removeEventListener('abort', close);
        close();
      }
      for (const part of mapper.finish(finishReason)) writer.write(part.type === 'finish' ? { ...part, messageMetadata: { lastSequence } } : part);
    },
  });
}
