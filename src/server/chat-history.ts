import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { isParkedRunStatus } from '../orchestration/session-transitions.js';
import type { RunRecord, SessionState } from '../types/session.js';
import type { StreamChunk } from '../types/stream.js';
import type { ServerContext } from './server-context.js';
import { UIMessageChunkMapper } from './ui-message-chunks.js';

/**
 * Bounds of `GET /chat/{id}/messages`: the latest `turns` assistant messages whose chunks span at most `chunks` stream
 * sequences, user messages found among the session's last `messages` messages; a read of the stream gives up after
 * `readMs` (a tail of chunks deleted by a retried step that nothing has followed yet).
 *
 * @example
 * const older = history.truncated; // more than CHAT_HISTORY_LIMITS.turns answers, or more chunks
 */
export const CHAT_HISTORY_LIMITS = { turns: 100, chunks: 20_000, messages: 5_000, readMs: 5_000 } as const;

/**
 * A chat session's messages as the AI SDK's `UIMessage`s (the initial messages of `useChat`), and whether older ones
 * were left out.
 *
 * @example
 * const { messages } = (await response.json()) as ChatHistory;
 */
export interface ChatHistory {
  messages: UIMessage[];
  truncated: boolean;
}

/** One assistant message: a run and the runs that continued it after it parked, and its stream range. */
interface Answer {
  runs: RunRecord[];
  /** Chunks after this sequence belong to it… */
  from: number;
  /** …up to this one (the next answer's start, or the stream's end). */
  to: number;
  chunks: StreamChunk[];
}

/** Runtime message ids: `${runId}:${step}:${index}`. */
const MESSAGE_ID = /^(.+):(\d+):(\d+)$/;

/**
 * @internal A chat session's history, built the way the live chat stream builds its messages: each answer's stream
 * chunks through `UIMessageChunkMapper`, then `readUIMessageStream` (the AI SDK's own reducer). An answer's id is its
 * first run's id (as the live stream's), so `useChat({ resume: true })` replaying a running answer replaces it in
 * place; its metadata carries `lastSequence`, so an answer to its tool calls continues right after it. Each answer
 * follows the user message that started it. Answers of pruned streams have no chunks and are left out.
 *
 * @example
 * return c.json(await chatHistory(context, await context.ownedSession(principal, sessionId)), 200);
 */
export async function chatHistory(context: ServerContext, state: SessionState): Promise<ChatHistory> {
  const { stateStore, streamManager } = context.options;
  const streamId = state.streamId ?? state.sessionId;
  const [{ runs }, info] = await Promise.all([stateStore.listRuns(state.sessionId), streamManager.getInfo(streamId)]);
  const all = answersOf(runs, info?.lastSequence ?? 0);
  let answers = all.slice(-CHAT_HISTORY_LIMITS.turns);
  const end = answers.at(-1)?.to ?? 0;
  while (answers.length > 1 && end - answers[0]!.from > CHAT_HISTORY_LIMITS.chunks) answers = answers.slice(1);
  const capped = await readChunks(context, streamId, answers, end);
  const users = await userMessagesByRun(context, state.sessionId);
  const messages: UIMessage[] = [];
  for (const answer of answers) {
    for (const run of answer.runs) messages.push(...(users.get(run.runId) ?? []));
    const message = await assistantMessage(state.sessionId, answer);
    if (message.parts.length > 0) messages.push(message);
  }
  return { messages, truncated: capped || answers.length < all.length };
}

/** Runs in turn order, grouped into answers: a run that continues a parked run continues its message. */
function answersOf(runs: readonly RunRecord[], streamEnd: number): Answer[] {
  const answers: Answer[] = [];
  for (const run of [...runs].sort((left, right) => left.turn - right.turn)) {
    const last = answers.at(-1);
    const previous = last?.runs.at(-1);
    if (last !== undefined && previous !== undefined && run.previousRunId === previous.runId && isParkedRunStatus(previous.status)) last.runs.push(run);
    else answers.push({ runs: [run], from: run.startSequence, to: streamEnd, chunks: [] });
  }
  answers.forEach((answer, index) => {
    const next = answers[index + 1];
    if (next !== undefined) answer.to = next.from;
  });
  return answers;
}

/** Read the chunks of every answer with one reader, from the first answer's start to `end`; true when the bound cut it. */
async function readChunks(context: ServerContext, streamId: string, answers: readonly Answer[], end: number): Promise<boolean> {
  const first = answers[0];
  if (first === undefined || end <= first.from) return false;
  const reader = await context.options.streamManager.createReader(streamId, first.from);
  const timer = setTimeout(() => void reader.close().catch(() => undefined), CHAT_HISTORY_LIMITS.readMs);
  let index = 0;
  let read = 0;
  try {
    for await (const chunk of reader) {
      while (index < answers.length - 1 && chunk.sequence > answers[index]!.to) index += 1;
      if (chunk.sequence <= answers[index]!.to) answers[index]!.chunks.push(chunk);
      read += 1;
      if (chunk.sequence >= end) return false;
      if (read >= CHAT_HISTORY_LIMITS.chunks) return true;
    }
    return false;
  } finally {
    clearTimeout(timer);
    await reader.close().catch(() => undefined);
  }
}

/** The answer as the live stream shows it (`finish` carries `lastSequence`; a parked answer waits for tool calls). */
async function assistantMessage(sessionId: string, answer: Answer): Promise<UIMessage> {
  const mapper = new UIMessageChunkMapper({ rootAgentId: sessionId });
  const parked = isParkedRunStatus(answer.runs.at(-1)?.status);
  const lastSequence = answer.chunks.at(-1)?.sequence ?? answer.from;
  const parts: UIMessageChunk[] = [
    ...mapper.start(answer.runs[0]!.runId),
    ...answer.chunks.flatMap((chunk) => mapper.map(chunk)),
    ...mapper.finish(parked ? 'tool-calls' : undefined).map((part) => (part.type === 'finish' ? { ...part, messageMetadata: { lastSequence } } : part)),
  ];
  const stream = new ReadableStream<UIMessageChunk>({
    start: (controller) => {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  let message: UIMessage = { id: answer.runs[0]!.runId, role: 'assistant', parts: [] };
  for await (const snapshot of readUIMessageStream({ stream })) message = snapshot;
  return message;
}

/** The user messages of the session's last `CHAT_HISTORY_LIMITS.messages` messages, by the run they started. */
async function userMessagesByRun(context: ServerContext, sessionId: string): Promise<Map<string, UIMessage[]>> {
  const { stateStore } = context.options;
  const total = await stateStore.getMessageCount(sessionId);
  const { messages } = await stateStore.getMessages(sessionId, { offset: Math.max(0, total - CHAT_HISTORY_LIMITS.messages) });
  const byRun = new Map<string, UIMessage[]>();
  for (const message of messages) {
    const runId = MESSAGE_ID.exec(message.id)?.[1];
    if (message.role !== 'user' || runId === undefined) continue;
    byRun.set(runId, [...(byRun.get(runId) ?? []), { id: message.id, role: 'user', parts: [{ type: 'text', text: message.content }] }]);
  }
  return byRun;
}
