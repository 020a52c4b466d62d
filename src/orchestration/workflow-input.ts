import type { SuspensionRecord } from './hitl-types.js';
import type { JournalStamp } from '../types/journal.js';
import type { UserMessage } from '../types/message.js';
import type { QueuePlacement } from './queue-placement.js';

/**
 * Identity every durable step of an agent run receives (JSON, small).
 *
 * @example
 * const scope: RunScope = { sessionId: 's1', runId: 'run-1', agentType: 'assistant', streamId: 's1', workflowId: 'assistant__s1__run-1' };
 */
export interface RunScope {
  sessionId: string;
  runId: string;
  agentType: string;
  streamId: string;
  workflowId: string;
  /** Root of the session tree (the session itself for top-level runs); usage records carry it. */
  rootSessionId?: string;
  /**
   * Key of this turn's process-local registrations (per-call hooks, stream-reset tracking). Absent for standard
   * runs (the workflow id is the key); `${workflowId}#${runId}` for a turn of a persistent session, whose one
   * workflow runs many turns.
   */
  turnKey?: string;
  /**
   * The trace a remote caller passed (`traceparent`) when it started this run: the run's spans join it under the
   * caller's span. Absent: the session's own trace.
   */
  trace?: { traceId: string; parentSpanId: string };
}

/**
 * The parent of a sub-agent run: where its completion is reported and under which identity its
 * `subagent_end` chunk is written.
 *
 * @example
 * const parent: ParentLink = { sessionId: 's1', agentType: 'planner', workflowId: 'planner__s1__run-1', callId: 'call_1', step: 2 };
 */
export interface ParentLink {
  sessionId: string;
  agentType: string;
  /** The parent run's workflow: it receives the child's completion message. */
  workflowId: string;
  /** The tool call that spawned the child. */
  callId: string;
  /** The parent's step number (stamped on the `subagent_end` chunk). */
  step: number;
  /** The calling run and tool (the child's spans go under that tool call's span); absent in older records. */
  runId?: string;
  toolName?: string;
}

/**
 * Arguments of the agent workflow (small JSON: ids and the turn's input only).
 *
 * @example
 * const input: AgentWorkflowInput = { ...scope, startSequence: 0, rootSessionId: 's1', warmWindowMs: 60_000 };
 */
export interface AgentWorkflowInput extends RunScope {
  /** Stream sequence when the run started. */
  startSequence: number;
  userMessage?: UserMessage;
  initialState?: Record<string, unknown>;
  /**
   * The run's start stored its turn with the run record, in one transaction: the user message appended, the step count
   * reset (and `initialState` written), the stream open. Its begin then only checks for an abort and fires the hooks.
   */
  turnStored?: true;
  /** Root of the session tree (the session itself for top-level runs). */
  rootSessionId: string;
  /** How long a human-in-the-loop wait stays warm before the run parks. */
  warmWindowMs: number;
  /** Set when this run continues an earlier one (resume/retry). */
  resume?: {
    previousRunId: string;
    /** A parked (or interrupted-while-waiting) step to settle before the next LLM call. */
    suspension?: SuspensionRecord;
  };
  /** Set for a sub-agent run: it reports to its parent and never ends the shared stream. */
  parent?: ParentLink;
  /** The step-journal format the run is recorded in (absent: a release before format 1; refused). */
  journal?: JournalStamp;
  /** The queue the run is enqueued on (absent: it starts in the process that started it). */
  queue?: QueuePlacement;
}

/**
 * The workflow input a run record keeps in its metadata (the launcher and the sub-agent step record it there), if any.
 *
 * @example
 * const input = recordedWorkflowInput(run.metadata);
 */
export function recordedWorkflowInput(metadata: Record<string, unknown> | undefined): AgentWorkflowInput | undefined {
  return (metadata as { workflowInput?: AgentWorkflowInput } | undefined)?.workflowInput;
}
