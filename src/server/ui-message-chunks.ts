import type { FinishReason, UIMessageChunk } from 'ai';
import { boundedMessage } from '../errors/safe-error.js';
import type { StreamChunk } from '../types/stream.js';

/**
 * What the client already shows for a tool call when a stream continues an assistant message:
 * `'input'` (the call is shown) or `'approval'` (an approval was requested and answered on the client).
 *
 * @example
 * const known: KnownToolCalls = { 'call-1': 'approval' };
 */
export type KnownToolCalls = Readonly<Record<string, 'input' | 'approval'>>;

/**
 * Options of `UIMessageChunkMapper`.
 *
 * @example
 * const options: UIMessageChunkMapperOptions = { rootAgentId: sessionId };
 */
export interface UIMessageChunkMapperOptions {
  /** The agentId of the root agent's chunks (the session id). Other agents' chunks are sub-agent chunks. */
  rootAgentId: string;
  /** Tool calls the client's assistant message already contains (when the stream continues it). */
  knownToolCalls?: KnownToolCalls;
}

type ToolCallView = 'input' | 'approval' | 'executing' | 'done';

/**
 * Pure, incremental mapping of our stream chunks to AI SDK 6 UI message chunks (what `useChat` and
 * `readUIMessageStream` consume). No I/O: feed chunks in stream order, collect what each call returns.
 *
 * | stream chunk | UI chunks |
 * |---|---|
 * | first chunk of a root agent step | `start-step` (and `finish-step` for the previous step) |
 * | `text_delta`, `thinking` | held for the step, then `reasoning-start/-delta/-end`, `text-start/-delta/-end` |
 * | `step_reset` | drops the held text and reasoning of that step (nothing of it was sent) |
 * | `tool_start` | `tool-input-start` + `tool-input-available` (once per call) |
 * | `tool_approval_request` | (input chunks if new) + `tool-approval-request` |
 * | `tool_end` | `tool-output-available`, `tool-output-error`, or `tool-output-denied` for a denied approval |
 * | `state_patch` | `data-state-patch` `{ patches }` |
 * | `custom` | `data-${eventName}` with the event's data |
 * | `subagent_start` / `subagent_end` | `data-subagent` (id = sub-agent session, updated in place) |
 * | `output` | `finish-step`, `data-output` `{ output }` |
 * | `error` | `finish-step`, `error` |
 * | `run_interrupted` | `finish-step`, `abort` |
 *
 * **step_reset.** The pinned `ai` has no chunk that removes text, so a step's text and reasoning are held
 * until the step's LLM call is final: the first chunk written after the call returned (a tool chunk, a
 * sub-agent chunk, the run's end, or a chunk of a later step). A retried LLM step writes `step_reset` before
 * any of those, so the held text of the failed attempt is dropped before a single character of it was sent:
 * the UI message holds each step's text exactly once, in the live stream, in a replay and after a reconnect.
 * The price: text appears per step, not per token. Other agents' (sub-agent) text is not shown.
 *
 * @example
 * const mapper = new UIMessageChunkMapper({ rootAgentId: sessionId });
 * const ui = [...mapper.start(runId), ...chunks.flatMap((chunk) => mapper.map(chunk)), ...mapper.finish()];
 */
export class UIMessageChunkMapper {
  private readonly rootAgentId: string;
  private readonly toolCalls = new Map<string, ToolCallView>();
  private step: number | undefined;
  private text = '';
  private reasoning = '';
  private parts = 0;
  private ending: FinishReason = 'stop';

  constructor(options: UIMessageChunkMapperOptions) {
    this.rootAgentId = options.rootAgentId;
    for (const [id, view] of Object.entries(options.knownToolCalls ?? {})) this.toolCalls.set(id, view);
  }

  /** The opening `start` chunk (with `messageId` when given). */
  start(messageId?: string): UIMessageChunk[] {
    return [messageId === undefined ? { type: 'start' } : { type: 'start', messageId }];
  }

  /** The UI chunks for one stream chunk (often none while text is held). */
  map(chunk: StreamChunk): UIMessageChunk[] {
    if (chunk.type === 'subagent_start' || chunk.type === 'subagent_end') return this.subAgent(chunk);
    if (chunk.agentId !== this.rootAgentId) return [];
    switch (chunk.type) {
      case 'text_delta':
        return this.hold(chunk.step, () => (this.text += chunk.delta));
      case 'thinking':
        return this.hold(chunk.step, () => (this.reasoning += chunk.delta));
      case 'step_reset':
        return this.hold(chunk.step, () => {
          this.text = '';
          this.reasoning = '';
        });
      case 'tool_start':
        return [...this.enterStep(chunk.step), ...this.toolInput(chunk.toolCallId, chunk.toolName, chunk.arguments, 'executing')];
      case 'tool_approval_request':
        return [
          ...this.enterStep(chunk.step),
          ...this.toolInput(chunk.toolCallId, chunk.toolName, chunk.arguments, 'approval'),
          { type: 'tool-approval-request', approvalId: chunk.approvalId, toolCallId: chunk.toolCallId },
        ];
      case 'tool_end':
        return [...this.enterStep(chunk.step), ...this.toolOutput(chunk)];
      case 'state_patch':
        return [{ type: 'data-state-patch', data: { patches: chunk.patches } }];
      case 'custom':
        return [{ type: `data-${chunk.eventName}`, data: chunk.data }];
      case 'output':
        return [...this.closeStep(), { type: 'data-output', data: { output: chunk.output } }];
      case 'error':
        this.ending = 'error';
        // Written sanitized by the run; bounded and redacted again here, whatever wrote the stream.
        return [...this.closeStep(), { type: 'error', errorText: boundedMessage(chunk.error) }];
      case 'run_suspended':
        return []; // the calls were mapped from their tool_start / tool_approval_request chunks
      case 'run_interrupted':
        this.ending = 'other';
        return [...this.closeStep(), chunk.reason === undefined ? { type: 'abort' } : { type: 'abort', reason: chunk.reason }];
    }
  }

  /**
   * The closing chunks: the open step's held text, `finish-step`, and `finish`. `finishReason` defaults to
   * `stop` (`error` after an error chunk, `other` after an interrupt); pass `tool-calls` when the run waits
   * for client tool results or approvals.
   */
  finish(finishReason?: FinishReason): UIMessageChunk[] {
    return [...this.closeStep(), { type: 'finish', finishReason: finishReason ?? this.ending }];
  }

  /** Held text of a step: enter the step, then update the buffers (nothing is sent yet). */
  private hold(step: number, update: () => void): UIMessageChunk[] {
    const entered = this.step === step ? [] : this.enterStep(step);
    update();
    return entered;
  }

  /** Flush the held text and open `step` when it is not the open step. */
  private enterStep(step: number): UIMessageChunk[] {
    if (this.step === step) return this.flush();
    const closed = this.closeStep();
    this.step = step;
    return [...closed, { type: 'start-step' }];
  }

  private closeStep(): UIMessageChunk[] {
    if (this.step === undefined) return [];
    const flushed = this.flush();
    this.step = undefined;
    return [...flushed, { type: 'finish-step' }];
  }

  private flush(): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    if (this.reasoning.length > 0) {
      const id = `reasoning-${(this.parts += 1)}`;
      out.push({ type: 'reasoning-start', id }, { type: 'reasoning-delta', id, delta: this.reasoning }, { type: 'reasoning-end', id });
    }
    if (this.text.length > 0) {
      const id = `text-${(this.parts += 1)}`;
      out.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: this.text }, { type: 'text-end', id });
    }
    this.text = '';
    this.reasoning = '';
    return out;
  }

  /** Input chunks the first time a call is seen; a call executing after its approval only changes its view. */
  private toolInput(toolCallId: string, toolName: string, input: unknown, view: 'executing' | 'approval'): UIMessageChunk[] {
    const known = this.toolCalls.get(toolCallId);
    if (known !== undefined) {
      if (view === 'executing' && known === 'approval') this.toolCalls.set(toolCallId, 'executing');
      return [];
    }
    this.toolCalls.set(toolCallId, view);
    return [
      { type: 'tool-input-start', toolCallId, toolName },
      { type: 'tool-input-available', toolCallId, toolName, input },
    ];
  }

  private toolOutput(chunk: Extract<StreamChunk, { type: 'tool_end' }>): UIMessageChunk[] {
    const view = this.toolCalls.get(chunk.toolCallId);
    // A call answered without running (unknown tool, invalid arguments) may end without a start.
    const input = view === undefined ? this.toolInput(chunk.toolCallId, chunk.toolName, {}, 'executing') : [];
    this.toolCalls.set(chunk.toolCallId, 'done');
    if (chunk.error === undefined) return [...input, { type: 'tool-output-available', toolCallId: chunk.toolCallId, output: chunk.result ?? null }];
    // An approval that ends with an error without ever executing was denied.
    if (view === 'approval') return [{ type: 'tool-output-denied', toolCallId: chunk.toolCallId }];
    return [...input, { type: 'tool-output-error', toolCallId: chunk.toolCallId, errorText: chunk.error }];
  }

  private subAgent(chunk: Extract<StreamChunk, { type: 'subagent_start' | 'subagent_end' }>): UIMessageChunk[] {
    // A failed child's `subagent_end` carries `{ error }` as its result (the reference has no success field).
    const failed = chunk.type === 'subagent_end' && typeof chunk.result === 'object' && chunk.result !== null && 'error' in chunk.result;
    const status = chunk.type === 'subagent_start' ? 'running' : failed ? 'failed' : 'completed';
    const data = {
      status,
      agentType: chunk.subAgentType,
      subSessionId: chunk.subSessionId,
      toolCallId: chunk.callId,
      ...(chunk.type === 'subagent_end' && chunk.result !== undefined ? { result: chunk.result } : {}),
    };
    return [{ type: 'data-subagent', id: chunk.subSessionId, data }];
  }
}

/**
 * Map a whole chunk sequence at once: `start`, every chunk's UI chunks, then the closing chunks.
 *
 * @example
 * const ui = mapStreamChunksToUI(chunks, { rootAgentId: 's1' }, { messageId: 'm1' });
 */
export function mapStreamChunksToUI(
  chunks: readonly StreamChunk[],
  options: UIMessageChunkMapperOptions,
  framing: { messageId?: string; finishReason?: FinishReason } = {},
): UIMessageChunk[] {
  const mapper = new UIMessageChunkMapper(options);
  return [...mapper.start(framing.messageId), ...chunks.flatMap((chunk) => mapper.map(chunk)), ...mapper.finish(framing.finishReason)];
}
