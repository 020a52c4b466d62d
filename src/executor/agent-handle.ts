import { DBOS, type WorkflowHandle } from '@dbos-inc/dbos-sdk';
import { DBOSWorkflowNotFoundError } from '../errors/index.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { AgentResult } from '../types/result.js';
import type { SessionState } from '../types/session.js';
import type { StreamChunk } from '../types/stream.js';
import type { AgentExecutionHandle } from './types.js';

/** Chunk types that close a run (FinishRunStep always writes exactly one of them for the run's own agent). */
const TERMINAL_CHUNKS = new Set<StreamChunk['type']>(['output', 'error', 'run_interrupted']);

/** What a handle needs from its executor. */
export interface HandleContext<TOutput> {
  stateStore: SessionStateStore;
  streamManager: StreamManager;
  streamId: string;
  startSequence: number;
  send: (input: string | { message: string; state?: Record<string, unknown> }) => Promise<AgentExecutionHandle<TOutput>>;
  /** The live DBOS handle when this process started the workflow (awaits its promise instead of polling). */
  liveHandle?: WorkflowHandle<unknown>;
}

/** Poll interval for results of workflows running in another process. */
const RESULT_POLL_MS = 100;

/** @internal The handle of one standard-mode run. */
export class DBOSAgentHandle<TOutput> implements AgentExecutionHandle<TOutput> {
  constructor(
    readonly sessionId: string,
    readonly runId: string,
    readonly workflowId: string,
    private readonly context: HandleContext<TOutput>,
  ) {}

  async *stream(): AsyncIterable<StreamChunk> {
    const reader = await this.context.streamManager.createReader(this.context.streamId, this.context.startSequence);
    try {
      for await (const chunk of reader) {
        yield chunk;
        if (chunk.agentId === this.sessionId && TERMINAL_CHUNKS.has(chunk.type)) return;
      }
    } finally {
      await reader.close();
    }
  }

  async result(): Promise<AgentResult<TOutput>> {
    if (this.context.liveHandle !== undefined) return (await this.context.liveHandle.getResult()) as AgentResult<TOutput>;
    const status = await DBOS.getWorkflowStatus(this.workflowId);
    if (status === null) throw new DBOSWorkflowNotFoundError(this.workflowId);
    const handle = DBOS.retrieveWorkflow<AgentResult<TOutput>>(this.workflowId);
    return (await handle.getResult({ pollingIntervalMs: RESULT_POLL_MS })) as AgentResult<TOutput>;
  }

  async getState(): Promise<SessionState | null> {
    return this.context.stateStore.loadState(this.sessionId);
  }

  async canResume(): Promise<boolean> {
    const state = await this.getState();
    if (state === null) return false;
    return state.status === 'interrupted' || state.status === 'paused' || Object.keys(state.pendingClientToolCalls ?? {}).length > 0;
  }

  async send(input: string | { message: string; state?: Record<string, unknown> }): Promise<AgentExecutionHandle<TOutput>> {
    return this.context.send(input);
  }
}
