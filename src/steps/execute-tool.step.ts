import { DBOS } from '@dbos-inc/dbos-sdk';
import type { ServerTool } from '../agent/index.js';
import { findEffectiveTool, type PlannedToolCall } from '../orchestration/index.js';
import { applyPatches } from '../state/index.js';
import type { JsonPatchOperation } from '../types/json-patch.js';
import type { SessionStateStore } from '../store/state-store.js';
import { checkpointIdFor } from '../orchestration/ids.js';
import type { ToolOutcome } from '../orchestration/tool-outcome.js';

export type { ToolOutcome } from '../orchestration/tool-outcome.js';
import { attemptsAllowed, retryDelayMs } from './tool-retry-policy.js';
import { invokeTool } from './tool-invocation.js';
import { pauseUnlessInterrupted } from './interruptible-pause.js';
import { hookIdentity, stepEnvironment, turnKeyOf, type RunScope } from './step-scope.js';
import { markWorkflowStartedHere, seenHere } from './stream-reset-tracker.js';
import { spanRetry, toolSpan, type SpanRetry } from '../telemetry/agent-spans.js';
import { LOAD_SKILL_TOOL_NAME, READ_SKILL_FILE_TOOL_NAME } from '../orchestration/skill-catalog.js';
import { toolFailure } from './failure-text.js';
import { chunkKey } from './stream-writers.js';
import { runJournaledStep } from '../journal/journal.js';
import { recordUsageWith, type StepRecord } from '../journal/step-record.js';
import { chunksBesideCheckpoints, committedEarlier, deferStepCommit, recordsStepCommit } from './tool-step-commit.js';
import type { SoleToolCommit } from '../orchestration/sole-tool-commit.js';
import { stepStartState } from './step-start-state.js';
import { plannedToolMissing } from './planned-tool-missing.js';
import { sessionDeletedError } from '../store/update-session-with-retry.js';
import { reopenResumedRun } from './reopen-run.js';

/** Input of `ExecuteToolStep.execute`. */
export interface ExecuteToolStepInput extends RunScope {
  step: number;
  call: PlannedToolCall;
  /** 1: parallel regular tools, seeded from the committed state; 2: finishWith tools, seeing phase 1's writes. */
  phase: 1 | 2;
  /** Issued right after the step's LLM call: seed from the state that call saw, when this process remembers it. */
  atStepStart?: boolean;
  /** The step's only work is this call: record the step's commit with the tool's result when possible (`soleToolCommit`). */
  commit?: SoleToolCommit;
}

/**
 * One server tool call as a durable step: fires beforeTool, runs `execute` with a ToolContext (Immer-tracked
 * state, custom events), retries by the executor's ToolRetryPolicy, stages the state patches under the
 * step's id (promoted atomically by the commit), fires onStateChange, and streams tool_start / state_patch /
 * tool_end. A call that still fails after its retries becomes an error result for the model, never a crash: the
 * model reads the tool's own message (bounded, redacted); the tool_end chunk gets its sanitized form (`toolFailure`).
 * onMessage and afterTool fire later, from the commit step, in call order. A call that is its step's only work
 * may record the step's commit with its own result (one transaction; see `recordsStepCommit`).
 */
export class ExecuteToolStep {
  /** The durable step (recorded as `ExecuteToolStep:<tool name>`, see `runJournaledStep`). */
  static async execute(input: ExecuteToolStepInput): Promise<ToolOutcome> {
    const recorded = await runJournaledStep(toolStepName(input.call.toolName), (record) => ExecuteToolStep.run(input, record), { portableOutput: true });
    return expandOutcome(input.call, recorded);
  }

  /** The step's body; what it returns is recorded, so it leaves out what the call already says (`expandOutcome`). */
  private static async run(input: ExecuteToolStepInput, record: StepRecord): Promise<RecordedOutcome> {
    // The first live step of a resumed execution reopens a run a DBOS cancel recorded aborted.
    await reopenResumedRun(record, input);
    const { dependencies, agent, hooks, emitter } = await stepEnvironment(input, input.step);
    const { stateStore, usageStore } = dependencies;
    // The step's commit joins this record: the tool's writes go into it directly, never through the staging table.
    const commitsHere = await recordsStepCommit(stateStore, hooks, record, input.commit);
    const { call } = input;
    const stepId = checkpointIdFor(input.runId, input.step);
    // An earlier attempt's record committed the agent step, but the step was not recorded: what it committed stands.
    if (commitsHere && input.commit !== undefined && record.firstLiveAfterReplay === true) {
      const earlier = await committedEarlier(stateStore, input, stepId, call, input.commit);
      if (earlier !== undefined) {
        // Committed, the step proves the next LLM call never ran: it needs no reset of a killed attempt.
        markWorkflowStartedHere(turnKeyOf(input));
        return earlier;
      }
    }
    // A call a recovering process runs before any other live step of the run is (most likely) a killed attempt's re-run.
    const recovered = !seenHere(turnKeyOf(input));
    const tool = findEffectiveTool(agent, call.toolName);
    if (tool === undefined || tool.kind !== 'server') {
      throw plannedToolMissing('server', call.toolName, agent.name);
    }
    const serverTool = tool as ServerTool<any, unknown, Record<string, unknown>>;

    await hooks.fire('beforeTool', { ...hookIdentity(input), toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
    await emitter.emit(
      { type: 'tool_start', toolCallId: call.toolCallId, toolName: call.toolName, arguments: call.input },
      { key: chunkKey(input, 'tool_start', call.toolCallId) },
    );

    const base = await seedState(stateStore, input, stepId);
    const startedAt = Date.now();
    const retries: SpanRetry[] = [];
    const attempts = attemptsAllowed(dependencies.toolRetryPolicy);
    // A failure's `error` is what the model reads; `streamed` is its sanitized form for the tool_end chunk.
    let outcome: { result: unknown; patches: JsonPatchOperation[] } | { error: string; streamed: string } = {
      error: 'The tool did not run.',
      streamed: 'TOOL_ERROR: The tool did not run.',
    };
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      try {
        outcome = await runOnce(serverTool, input, base, emitter.emit.bind(emitter), DBOS.stepStatus?.cancelSignal);
        break;
      } catch (error) {
        const failure = toolFailure(call.toolName, error, { sessionId: input.sessionId, toolCallId: call.toolCallId, attempt });
        outcome = { error: failure.forModel, streamed: failure.forStream };
        // A cancelled workflow (abort(), or an operator through DBOS) retries nothing: its step is not recorded.
        if (DBOS.stepStatus?.cancelSignal.aborted === true) break;
        if (attempt < attempts) {
          retries.push(spanRetry(error));
          dependencies.logger.warn('tool.retry', { sessionId: input.sessionId, toolCallId: call.toolCallId, attempt });
          if (await pauseUnlessInterrupted(stateStore, input.sessionId, retryDelayMs(dependencies.toolRetryPolicy, attempt))) break;
        }
      }
    }
    const durationMs = Date.now() - startedAt;
    // A live tool call of step n proves step n + 1's LLM call never ran: it needs no reset of a killed attempt.
    markWorkflowStartedHere(turnKeyOf(input));
    toolSpan(input, {
      step: input.step,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      startedAt,
      endedAt: startedAt + durationMs,
      outcome: 'result' in outcome ? 'success' : 'error',
      attempt: recovered ? 2 : 1,
      recovered,
      retries,
      arguments: call.input,
      ...skillAttributes(call),
      ...('result' in outcome ? { result: outcome.result } : { error: { type: 'tool_error' } }),
    });

    if ('result' in outcome && outcome.patches.length > 0) {
      if (!commitsHere) await stateStore.stageChanges(input.sessionId, { stepId, stagingKey: call.toolCallId, patches: outcome.patches });
      // Committed with this record, the patches are in the step's checkpoint: the chunk may refer to them there.
      const patchesIn = commitsHere && chunksBesideCheckpoints(stateStore, dependencies.streamManager) ? stepId : undefined;
      await emitter.emit({ type: 'state_patch', patches: outcome.patches }, patchesIn === undefined ? undefined : { patchesIn });
      await hooks.fire('onStateChange', { ...hookIdentity(input), toolCallId: call.toolCallId, patches: outcome.patches });
    }
    const success = 'result' in outcome;
    const ending = 'result' in outcome ? { result: outcome.result } : { error: outcome.error };
    await emitter.emit({
      type: 'tool_end',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      ...('result' in outcome ? ending : { error: outcome.streamed }),
    });
    await emitter.flushWith(record);
    await recordUsageWith(record, usageStore, [
      {
        id: `${input.runId}:${input.step}:tool:${call.toolCallId}`,
        sessionId: input.sessionId,
        runId: input.runId,
        kind: 'tool',
        name: call.toolName,
        step: input.step,
        durationMs,
        success,
        createdAt: Date.now(),
        rootSessionId: input.rootSessionId ?? input.sessionId,
      },
    ]);
    const toolOutcome: ToolOutcome = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      index: call.index,
      resultMessageId: call.resultMessageId,
      input: call.input,
      success,
      ...ending,
      durationMs,
    };
    if (!commitsHere || input.commit === undefined) return { toolCallId: call.toolCallId, success, ...ending, durationMs };
    deferStepCommit(record, stateStore, input, input.commit, toolOutcome, 'result' in outcome ? outcome.patches : []);
    // Its result is in the committed messages: the record names the call and says it is committed (and a failure).
    return success ? { toolCallId: call.toolCallId, committed: true } : { toolCallId: call.toolCallId, committed: true, success };
  }
}

/**
 * The name a tool call's step is recorded under, so DBOS's step list shows which tool ran.
 *
 * @example
 * toolStepName('search'); // 'ExecuteToolStep:search'
 */
export function toolStepName(toolName: string): string {
  return `ExecuteToolStep:${toolName}`;
}

/**
 * What an `ExecuteToolStep` records: the call's id and its outcome, not the call's other fields. A step committed with
 * its tool's record records the call and that (`{ toolCallId, committed: true }`, plus `success: false` for a failed
 * call): its result is in the committed messages and nothing reads its duration again.
 */
type RecordedOutcome = Pick<ToolOutcome, 'result' | 'error' | 'committed'> & Partial<ToolOutcome>;

/** The full outcome of `call` from its record (records of earlier versions carry every field; theirs win). */
function expandOutcome(call: PlannedToolCall, recorded: RecordedOutcome): ToolOutcome {
  const { toolCallId, toolName, index, resultMessageId, input } = call;
  return { toolCallId, toolName, index, resultMessageId, input, success: true, durationMs: 0, ...recorded };
}

/** Phase 1 tools seed from the committed state; phase 2 tools also see the step's other staged writes. */
async function seedState(stateStore: SessionStateStore, input: ExecuteToolStepInput, stepId: string): Promise<Record<string, unknown>> {
  const remembered = input.phase === 1 && input.atStepStart === true ? stepStartState(stateStore, input) : undefined;
  if (remembered !== undefined) return remembered;
  const state = await stateStore.loadState(input.sessionId);
  if (state === null) throw sessionDeletedError(input.sessionId);
  if (input.phase === 1) return state.customState;
  const staged = await stateStore.getStagedChanges(input.sessionId, stepId);
  const patches = staged.filter((row) => row.stagingKey !== input.call.toolCallId).flatMap((row) => row.patches);
  return applyPatches(state.customState, patches);
}

async function runOnce(
  tool: ServerTool<any, unknown, Record<string, unknown>>,
  input: ExecuteToolStepInput,
  base: Record<string, unknown>,
  emit: (payload: { type: 'custom'; eventName: string; data: unknown }) => Promise<void>,
  cancelled: AbortSignal | undefined,
): Promise<{ result: unknown; patches: JsonPatchOperation[] }> {
  const abort = new AbortController();
  // abort() cancels the run's workflow; DBOS reports that through the step's cancel signal.
  const onCancelled = (): void => abort.abort();
  if (cancelled?.aborted === true) abort.abort();
  cancelled?.addEventListener('abort', onCancelled, { once: true });
  try {
    const { call, sessionId, agentType } = input;
    return await invokeTool((value, context) => tool.execute(value, context), {
      call,
      sessionId,
      agentType,
      base,
      emit,
      abort,
      timeoutMs: tool.timeoutMs,
      extra: {},
    });
  } finally {
    cancelled?.removeEventListener('abort', onCancelled);
  }
}

/** A skill tool's span names the skill it loads and the file it reads (bounded: they come from the model). */
function skillAttributes(call: PlannedToolCall): { extra?: Record<string, string> } {
  const operation = call.toolName === LOAD_SKILL_TOOL_NAME ? 'load' : call.toolName === READ_SKILL_FILE_TOOL_NAME ? 'read' : undefined;
  if (operation === undefined) return {};
  const { name, path } = call.input as { name?: unknown; path?: unknown };
  const bounded = (value: unknown): string => String(value).slice(0, 256);
  return {
    extra: { 'helix.skill.operation': operation, 'helix.skill.name': bounded(name), ...(operation === 'read' ? { 'helix.skill.path': bounded(path) } : {}) },
  };
}
