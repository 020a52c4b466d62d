import type { HitlResolution } from '../orchestration/hitl-types.js';
import type { ParentLink } from '../orchestration/workflow-input.js';
import { recordedWorkflowInput } from '../orchestration/workflow-input.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { CompletionReason, RunRecord, RunStatus } from '../types/session.js';
import { telemetry, type SpanScope } from '../telemetry/agent-telemetry.js';
import { runSpan, toolSpan } from '../telemetry/agent-spans.js';
import { STEP, TOOL_CALL_ID, TOOL_NAME } from '../telemetry/semconv.js';

/** How a run ended, as its `invoke_agent` span reports it. */
export interface RunEnding {
  status: RunStatus;
  completionReason?: CompletionReason;
  stepCount: number;
  error?: string;
  /** The run's record when the caller has it (else read, only while tracing). */
  run?: RunRecord | null;
  parent?: ParentLink;
  /** The agent's model key (`provider:model`), when the caller knows it. */
  modelKey?: string;
}

/**
 * Emit the span of a run that ended or parked (`invoke_agent`, from its record's start to now) and count it; a
 * sub-agent's run that ended for good also closes the parent's tool call span (`execute_tool <tool>`, from the child
 * session's creation). Called where the run's end is recorded: the finish step, a park, an abort or cancel, a repair.
 *
 * @example
 * await emitRunEnded(stateStore, input, { status: 'completed', completionReason: 'text_response', stepCount: 2 });
 */
export async function emitRunEnded(stateStore: SessionStateStore, given: SpanScope, ending: RunEnding): Promise<void> {
  const current = telemetry();
  const now = Date.now();
  if (!current.tracing) {
    runSpan(given, { startedAt: now, endedAt: now, status: ending.status, stepCount: ending.stepCount, ...reasonOf(ending) });
    return;
  }
  const run = ending.run?.runId === given.runId ? ending.run : await stateStore.getRun(given.sessionId, given.runId);
  const recorded = recordedWorkflowInput(run?.metadata);
  const parent = ending.parent ?? recorded?.parent;
  const rootSessionId = given.rootSessionId ?? recorded?.rootSessionId;
  const scope = {
    ...given,
    ...(rootSessionId === undefined ? {} : { rootSessionId }),
    ...((given.trace ?? recorded?.trace) ? { trace: given.trace ?? recorded!.trace! } : {}),
  };
  const callingRun = parent === undefined ? undefined : { sessionId: parent.sessionId, toolCallId: parent.callId };
  runSpan(scope, {
    startedAt: run?.startedAt ?? now,
    endedAt: now,
    status: ending.status,
    stepCount: ending.stepCount,
    ...reasonOf(ending),
    ...(run?.previousRunId === undefined ? {} : { previousRunId: run.previousRunId }),
    ...(callingRun === undefined ? {} : { parent: callingRun }),
    ...(ending.error === undefined ? {} : { error: ending.error }),
    ...(ending.modelKey === undefined ? {} : { modelKey: ending.modelKey }),
  });
  if (parent?.runId === undefined || !['completed', 'failed', 'aborted'].includes(ending.status)) return;
  // The parent's tool call is over once its child ended for good: its span, on the parent's behalf, under the run that
  // made the call (the parent link of the child's first run; a later one names the parent run that carried it on).
  const [child, runs] = await Promise.all([stateStore.loadState(scope.sessionId), stateStore.listRuns(scope.sessionId)]);
  const callingRunId = recordedWorkflowInput(runs.runs[0]?.metadata)?.parent?.runId ?? parent.runId;
  toolSpan(
    {
      sessionId: parent.sessionId,
      runId: callingRunId,
      agentType: parent.agentType,
      ...(scope.rootSessionId === undefined ? {} : { rootSessionId: scope.rootSessionId }),
      ...(scope.trace === undefined ? {} : { trace: scope.trace }),
    },
    {
      step: parent.step,
      toolCallId: parent.callId,
      toolName: parent.toolName ?? scope.agentType,
      startedAt: child?.createdAt ?? run?.startedAt ?? now,
      endedAt: now,
      outcome: ending.status === 'completed' ? 'success' : ending.status === 'aborted' ? 'aborted' : 'error',
      executor: 'sub_agent',
      attempt: 1,
      ...(ending.status === 'completed' ? {} : { error: { type: ending.status === 'aborted' ? 'aborted' : 'sub_agent_failed' } }),
    },
  );
}

function reasonOf(ending: RunEnding): { completionReason?: CompletionReason } {
  return ending.completionReason === undefined ? {} : { completionReason: ending.completionReason };
}

/**
 * Emit the human waits a step resolved: a client tool's `execute_tool <tool>` span (executor `client`) and an approval's
 * `await_approval <tool>` span, each from the call's creation to its submission (or now, for a deadline). Reads the
 * session's pending calls only while tracing.
 *
 * @example
 * await emitHumanWaits(stateStore, input, resolutions, input.expired);
 */
export async function emitHumanWaits(
  stateStore: SessionStateStore,
  scope: SpanScope & { step: number },
  resolutions: readonly HitlResolution[],
  expired: readonly string[],
): Promise<void> {
  if (!telemetry().tracing || resolutions.length === 0) return;
  const pending = (await stateStore.loadState(scope.sessionId))?.pendingClientToolCalls ?? {};
  const now = Date.now();
  for (const { call, outcome, error } of resolutions) {
    const id = call.call.toolCallId;
    const entry = pending[id];
    const times = { startedAt: entry?.createdAt ?? now, endedAt: entry?.submittedAt ?? now };
    const why = expired.includes(id) ? 'expired' : outcome === 'error' ? 'error' : undefined;
    if (call.kind === 'client') {
      const ending = outcome === 'result' ? {} : { error: { type: why ?? 'error' } };
      toolSpan(scope, {
        step: scope.step,
        toolCallId: id,
        toolName: call.call.toolName,
        ...times,
        outcome: outcome === 'result' ? 'success' : 'error',
        executor: 'client',
        attempt: 1,
        ...ending,
      });
      continue;
    }
    const decision = outcome === 'run' ? 'approved' : (why ?? 'denied');
    telemetry().emit(scope, {
      name: `await_approval ${call.call.toolName}`,
      startTime: times.startedAt,
      endTime: times.endedAt,
      attributes: { [TOOL_NAME]: call.call.toolName, [TOOL_CALL_ID]: id, 'helix.approval.decision': decision, [STEP]: scope.step },
      ...(decision === 'approved' || error === undefined ? {} : { error: { type: `approval_${decision}` } }),
    });
  }
}
