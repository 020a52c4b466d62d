import type { JsonPatchOperation } from './json-patch.js';
import type { SuspendedCall } from './result.js';

/** Fields every stream chunk carries. `sequence` is assigned by the stream manager (1, 2, 3… per stream). */
export interface ChunkBase {
  agentId: string;
  agentType: string;
  /** Epoch ms, taken by the writer. */
  timestamp: number;
  /** Agent step the chunk belongs to (0 before the first LLM call). */
  step: number;
  sequence: number;
}

export interface TextDeltaChunk extends ChunkBase { type: 'text_delta'; delta: string }
export interface ThinkingChunk extends ChunkBase { type: 'thinking'; delta: string; isComplete?: boolean }
export interface ToolStartChunk extends ChunkBase {
  type: 'tool_start';
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  /** True for `execute: 'client'` tools: the client must run the tool and submit its result. */
  clientExecuted?: boolean;
}
export interface ToolEndChunk extends ChunkBase {
  type: 'tool_end';
  toolCallId: string;
  toolName: string;
  result?: unknown;
  error?: string;
}
export interface ToolApprovalRequestChunk extends ChunkBase {
  type: 'tool_approval_request';
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  approvalId: string;
}
export interface StatePatchChunk extends ChunkBase { type: 'state_patch'; patches: JsonPatchOperation[] }
export interface CustomChunk extends ChunkBase { type: 'custom'; eventName: string; data: unknown }
export interface SubAgentStartChunk extends ChunkBase {
  type: 'subagent_start';
  subAgentType: string;
  /** The sub-agent's session id; its own chunks carry it as `agentId`. */
  subSessionId: string;
  /** The tool call that spawned the sub-agent. */
  callId: string;
}
export interface SubAgentEndChunk extends ChunkBase {
  type: 'subagent_end';
  subAgentType: string;
  subSessionId: string;
  callId: string;
  /** The sub-agent's output, or `{ error }` when it did not complete. */
  result?: unknown;
}
export interface ErrorChunk extends ChunkBase { type: 'error'; error: string; code?: string; recoverable: boolean }
export interface OutputChunk extends ChunkBase { type: 'output'; output: unknown }
export interface RunInterruptedChunk extends ChunkBase { type: 'run_interrupted'; reason?: string; runId: string }
/**
 * The run now waits for humans: written as soon as a step's client-executed calls and approval requests are
 * announced (right after their `tool_start` / `tool_approval_request` chunks), so a UI reading the stream can
 * render them without awaiting `result()`. Submit with `submitToolResult()`; the run stays warm for the warm
 * window, then parks (its stream ends) and `resume()` continues it. Not terminal: after the answers, the same
 * run (warm) goes on writing to the stream.
 *
 * @example
 * for await (const chunk of handle.stream()) if (chunk.type === 'run_suspended') { showPrompts(chunk.calls); break; }
 */
export interface RunSuspendedChunk extends ChunkBase {
  type: 'run_suspended';
  runId: string;
  reason: 'client_tool';
  /** The calls the run now waits for: `client` (run the tool, submit its result) or `approval` (approve/deny). */
  calls: SuspendedCall[];
}
/** Emitted when an LLM step is retried: readers drop every chunk of `step` they saw before this one. */
export interface StepResetChunk extends ChunkBase { type: 'step_reset'; attempt: number }

/**
 * Every chunk type a stream carries.
 *
 * @example
 * for await (const chunk of handle.stream()) if (chunk.type === 'text_delta') process.stdout.write(chunk.delta);
 */
export type StreamChunk =
  | TextDeltaChunk
  | ThinkingChunk
  | ToolStartChunk
  | ToolEndChunk
  | ToolApprovalRequestChunk
  | StatePatchChunk
  | CustomChunk
  | SubAgentStartChunk
  | SubAgentEndChunk
  | ErrorChunk
  | OutputChunk
  | RunInterruptedChunk
  | RunSuspendedChunk
  | StepResetChunk;

/**
 * The `type` discriminator values.
 *
 * @example
 * const shown: StreamChunkType[] = ['text_delta', 'tool_start', 'tool_end'];
 */
export type StreamChunkType = StreamChunk['type'];

type WithoutSequence<T> = T extends unknown ? Omit<T, 'sequence'> : never;
/** A chunk as handed to a writer: everything but `sequence`, which the manager assigns. */
export type StreamChunkInput = WithoutSequence<StreamChunk>;

/** Lifecycle of a stream. */
export type StreamStatus = 'active' | 'ended' | 'failed';

/**
 * What `getInfo` reports.
 *
 * @example
 * const info: StreamInfo | null = await streamManager.getInfo('s1');
 */
export interface StreamInfo {
  streamId: string;
  status: StreamStatus;
  /** Highest sequence written so far (0 when empty). */
  lastSequence: number;
  /** Chunks currently stored (after cleanups). */
  chunkCount: number;
  output?: unknown;
  error?: string;
  createdAt: number;
  updatedAt: number;
}
