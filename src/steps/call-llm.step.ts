import { DBOS } from '@dbos-inc/dbos-sdk';
import { warnUnusedAgentConfig } from '../agent/unused-config-warning.js';
import { ConfigurationError, LLMCallError } from '../errors/index.js';
import { chatSpan, errorTypeOf, spanRetry, type SpanRetry } from '../telemetry/agent-spans.js';
import type { LLMAdapter } from '../llm/adapter.js';
import { buildMessagesForLLM } from '../orchestration/index.js';
import { screenToolCalls } from '../orchestration/tool-argument-limits.js';
import { appendToSystemPrompt } from '../orchestration/skill-catalog.js';
import { resolveSkillsPromptFragment } from '../skills/agent-skills.js';
import { llmOutputOf, recordedLLMOutput, stepDecisionResult, type LLMStepOutput, type RecordedLLMOutput } from '../orchestration/step-decision-result.js';
import { loadStepState } from './load-step-state.js';
import type { StepCommitReport } from '../types/step-commit-report.js';
import { commitStepWith, type PendingStepCommit } from './commit.step.js';
import { cachedHistory, loadHistory, noteCommittedMessages } from './history-cache.js';
import { takeFirstStepReads } from './first-step-reads.js';
import { takeFirstCallAhead, toolSchemasOf } from './first-call-ahead.js';
import { needsStreamReset } from './stream-reset-tracker.js';
import { runJournaledStep } from '../journal/journal.js';
import { recordUsageWith, type StepRecord } from '../journal/step-record.js';
import { takeToolStepReport } from './tool-step-commit.js';
import { rememberStepStartState } from './step-start-state.js';
import { pauseUnlessInterrupted, watchInterruptFlag } from './interruptible-pause.js';
import { waitOutRateLimit } from './rate-limit-wait.js';
import { acquireModelPermit, releaseModelPermit } from './model-permit.js';
import { describeError, hookIdentity, modelKeyOf, stepEnvironment, turnKeyOf, type RunScope } from './step-scope.js';
import { llmFailure } from './failure-text.js';
import { sessionDeletedError } from '../store/update-session-with-retry.js';
import { reopenResumedRun } from './reopen-run.js';
import { startFinishReads } from './finish-reads.js';
import { finishMayJoinRecord } from './finish-record.js';

/** Input of `CallLLMStep.call`. */
export interface CallLLMStepInput extends RunScope {
  step: number;
  /** Stream sequence at which the run started: a reset only removes this run's chunks. */
  startSequence: number;
  /** The previous step's commit, done first (idempotent by checkpoint id): no step of its own. */
  commit?: PendingStepCommit;
}

/** Output of `CallLLMStep.call`: the compact LLM result, or an observed interrupt request. */
export type CallLLMStepOutput = LLMStepOutput;

/** LLM attempts inside one step (retryable provider errors only). */
const LLM_ATTEMPTS = 3;
const LLM_RETRY_BASE_MS = 500;

/**
 * The durable LLM call of one agent step. Checks the interrupt flag, loads history inside the step (never
 * through workflow arguments), streams deltas while the model generates and returns the compact StepResult the workflow decides from
 * that DBOS checkpoints, so a recovered workflow never pays for the same call twice. A retried attempt (or
 * the first attempt in a process that recovered the workflow) first removes the step's partial chunks and
 * emits `step_reset`.
 */
export class CallLLMStep {
  /** The durable step (recorded as `CallLLMStep`, see `runJournaledStep`). */
  static async call(input: CallLLMStepInput): Promise<CallLLMStepOutput> {
    // Recorded compactly (journal format 2); a record of format 1 holds the output as is.
    const body = async (record: StepRecord): Promise<RecordedLLMOutput | CallLLMStepOutput> => recordedLLMOutput(await CallLLMStep.run(input, record));
    return llmOutputOf(await runJournaledStep('CallLLMStep', body, { portableOutput: true }));
  }

  private static async run(input: CallLLMStepInput, record: StepRecord): Promise<CallLLMStepOutput> {
    // The first live step of a resumed execution reopens a run a DBOS cancel recorded aborted.
    await reopenResumedRun(record, input);
    const environment = await stepEnvironment(input, input.step);
    const { dependencies, agent, hooks, emitter } = environment;
    const { stateStore, streamManager, usageStore } = dependencies;
    emitter.prepare();
    // The previous step's commit (done here, or by its tool step in this process) reports the session, its new
    // messages and the interrupt flag: no reads of them.
    const report =
      input.commit === undefined
        ? takeToolStepReport(stateStore, input, input.step - 1)
        : (await commitStepWith(environment, { ...input, ...input.commit, returnState: false })).report;
    // The commit's flag reading holds unless message hooks ran after it (an interrupt may have come meanwhile).
    const hooksRan = hooks.hasHooks('onMessage') || hooks.hasHooks('afterTool');
    // The flag, the session and its history are read at once (each only when the commit did not report it); the
    // history's outcome counts only once the flag and the session were decided on.
    // A stored turn's first step: its begin started these reads (see startFirstStepReads).
    const early = input.step === 1 && report === undefined && record.firstLiveAfterReplay !== true ? takeFirstStepReads(stateStore, input.runId) : undefined;
    const historyRead = Promise.resolve(early?.history ?? historyAfter(report, stateStore, input.sessionId) ?? loadHistory(stateStore, input.sessionId));
    historyRead.catch(() => undefined);
    // Its first model call may have been made ahead from these reads (see startFirstCallAhead): adopted below.
    const ahead = input.step === 1 && record.firstLiveAfterReplay !== true ? takeFirstCallAhead(input.runId) : undefined;
    const [flag, state] = await Promise.all([
      early?.flag ?? (report?.interruptRequested !== false || hooksRan ? stateStore.readInterruptFlag(input.sessionId) : undefined),
      early?.state ?? report?.state ?? loadStepState(stateStore, input.sessionId),
    ]);
    if (flag?.interrupted === true || state === null) ahead?.discard(); // the same reads stopped it before it called
    if (flag?.interrupted === true) return { kind: 'interrupted', ...(flag.reason === undefined ? {} : { reason: flag.reason }) };
    if (state === null) throw sessionDeletedError(input.sessionId);
    rememberStepStartState(stateStore, input, state.customState);
    const history = await historyRead;
    warnUnusedAgentConfig(agent, dependencies.logger);
    // The skills catalog is read here, inside the step, so a provider's I/O is checkpointed with the call.
    const skillsFragment = await resolveSkillsPromptFragment(agent, dependencies.logger);
    const messages = appendToSystemPrompt(buildMessagesForLLM(agent, history, state.customState), skillsFragment);
    const tools = toolSchemasOf(agent);
    await hooks.fire('beforeLLMCall', { ...hookIdentity(input), step: input.step, messageCount: messages.length });

    // Fires when abort() cancels the run's workflow: the adapter stops the provider call.
    const abortSignal = DBOS.stepStatus?.cancelSignal;
    let adopted = (await ahead?.madeFrom(agent, state, history)) === true ? ahead : undefined;
    // A call made ahead and not adopted is stopped; its chunks (its first delta was flushed) are reset first.
    let resetNeeded = needsStreamReset(turnKeyOf(input)) || (adopted === undefined && ahead?.discard() === true);
    const rateLimitWaits = { count: 0, waitedMs: 0 };
    // The first live LLM step of a process that recovered the run is (most likely) a killed attempt's re-run.
    const requestModel = modelKeyOf(environment);
    const span = {
      step: input.step,
      attempt: resetNeeded ? 2 : 1,
      recovered: resetNeeded,
      retries: [] as SpanRetry[],
      input: () => messages,
      ...(requestModel === undefined ? {} : { requestModel }),
    };
    const callStartedAt = adopted?.startedAt ?? Date.now();
    let firstChunkAt: number | undefined;
    const firstChunk = (): void => {
      firstChunkAt ??= Date.now();
    };
    for (let attempt = 1; ; attempt += 1) {
      if (resetNeeded) {
        // Only the root cleans up physically, and only its own chunks: its stream also holds its sub-agents' chunks
        // (numbered by their own steps). A sub-agent relies on its step_reset (readers drop its earlier chunks of the step).
        if (input.streamId === input.sessionId) {
          await streamManager.cleanupToStep(input.streamId, input.step - 1, { afterSequence: input.startSequence, agentId: input.sessionId });
        }
        await emitter.emit({ type: 'step_reset', attempt });
      }
      const permit = await acquireModelPermit(environment, input, messages, attempt);
      if (permit.kind === 'interrupted') return interruptedOutcome(stateStore, input.sessionId);
      // The call made ahead is the first attempt's, once (a rate limit waited out repeats attempt 1 with a new call).
      const first = adopted;
      adopted = undefined;
      const startedAt = first?.startedAt ?? Date.now();
      // An interrupt (from any process) stops the call in flight: the flag is read while the model generates.
      const watch = watchInterruptFlag(stateStore, input.sessionId, abortSignal);
      let usedTokens: number | undefined;
      try {
        const request = {
          messages,
          tools,
          config: agent.llmConfig,
          agentType: agent.name,
          sessionId: input.sessionId,
          step: input.step,
          abortSignal: watch.signal,
          toolArgumentLimits: dependencies.toolArgumentLimits,
        };
        const callbacks = {
          onTextDelta: (delta: string) => (firstChunk(), emitter.emit({ type: 'text_delta', delta })),
          onThinkingDelta: (delta: string) => (firstChunk(), emitter.emit({ type: 'thinking', delta })),
        };
        const generating = first?.adopt(watch.signal) ?? modelOf(dependencies).generateStep(request, callbacks);
        const result = await generating
          .then((generated) => {
            firstChunkAt ??= first?.firstChunkAt;
            usedTokens = generated.usage.totalTokens;
            return generated;
          })
          // A provider's own error text (it may echo the prompt or the key) never leaves this step.
          .catch((error: unknown) => Promise.reject(llmFailure(error, { sessionId: input.sessionId, runId: input.runId, step: input.step })))
          .finally(() => watch.stop())
          .finally(() => releaseModelPermit(environment, permit, usedTokens))
          // Arguments past the limits never reach the checkpoint, the history or the next prompt.
          .then((generated) => screenToolCalls(generated, dependencies.toolArgumentLimits));
        // An answer without tool calls most likely ends the run: its finish's reads go beside this step's record (the
        // stream's only for a root run, on its own stream, whose finish may join its record).
        if (result.toolCalls.length === 0) {
          const root = input.streamId === input.sessionId;
          startFinishReads(stateStore, streamManager, { ...input, withStream: root && finishMayJoinRecord(hooks, { status: 'completed' }) });
        }
        await emitter.flushWith(record);
        await recordUsageWith(record, usageStore, [
          {
            id: `${input.runId}:${input.step}:llm`,
            sessionId: input.sessionId,
            runId: input.runId,
            kind: 'llm',
            name: result.modelId ?? agent.name,
            step: input.step,
            inputTokens: result.usage.inputTokens,
            outputTokens: result.usage.outputTokens,
            totalTokens: result.usage.totalTokens,
            durationMs: Date.now() - startedAt,
            success: true,
            createdAt: Date.now(),
            rootSessionId: input.rootSessionId ?? input.sessionId,
          },
        ]);
        await hooks.fire('afterLLMCall', { ...hookIdentity(input), step: input.step, result });
        const timeToFirstChunkMs = firstChunkAt === undefined ? undefined : firstChunkAt - startedAt;
        chatSpan(input, {
          ...span,
          startedAt: callStartedAt,
          endedAt: Date.now(),
          result,
          ...(timeToFirstChunkMs === undefined ? {} : { timeToFirstChunkMs }),
        });
        // What the workflow decides the step from (the accounting only for a stopWhen): the step's record.
        return { kind: 'result', result: stepDecisionResult(result, agent) };
      } catch (error) {
        await emitter.flush().catch(() => undefined);
        if (watch.interrupted()) return interruptedOutcome(stateStore, input.sessionId);
        const rateLimit = await waitOutRateLimit(environment, input, error, rateLimitWaits);
        if (rateLimit !== 'not_rate_limited') {
          if (rateLimit === 'interrupted') return interruptedOutcome(stateStore, input.sessionId);
          // A rate limit waited out is not a failed attempt.
          attempt -= 1;
          resetNeeded = true;
          continue;
        }
        const retryable = LLMCallError.isInstance(error) && error.retryable;
        if (!retryable || attempt >= LLM_ATTEMPTS) {
          chatSpan(input, { ...span, startedAt: callStartedAt, endedAt: Date.now(), error: { type: errorTypeOf(error) } });
          throw error;
        }
        span.retries.push(spanRetry(error));
        firstChunkAt = undefined;
        dependencies.logger.warn('llm.retry', { sessionId: input.sessionId, step: input.step, attempt, error: describeError(error) });
        if (await pauseUnlessInterrupted(stateStore, input.sessionId, LLM_RETRY_BASE_MS * 2 ** (attempt - 1))) {
          return interruptedOutcome(stateStore, input.sessionId);
        }
        resetNeeded = true;
      }
    }
  }
}

/** The step's outcome once an interrupt stopped it (with the interrupt's reason). */
async function interruptedOutcome(
  stateStore: { readInterruptFlag(sessionId: string): Promise<{ reason?: string }> },
  sessionId: string,
): Promise<CallLLMStepOutput> {
  const interrupted = await stateStore.readInterruptFlag(sessionId);
  return { kind: 'interrupted', ...(interrupted.reason === undefined ? {} : { reason: interrupted.reason }) };
}

/** The process's model; a process that only enqueues runs has none (its executor got no `llmAdapter`). */
function modelOf(dependencies: { llmAdapter?: LLMAdapter }): LLMAdapter {
  if (dependencies.llmAdapter !== undefined) return dependencies.llmAdapter;
  throw new ConfigurationError(
    'NO_LLM_ADAPTER',
    "This process's executor has no llmAdapter, so it cannot run an agent's model step: leave its queues out of this process's DBOS listenQueues.",
  );
}

/** The cached history extended by the commit's appended messages, when it lines up with the commit's count. */
function historyAfter(report: StepCommitReport | undefined, stateStore: Parameters<typeof loadHistory>[0], sessionId: string) {
  return report !== undefined && noteCommittedMessages(stateStore, sessionId, report) ? cachedHistory(stateStore, sessionId) : undefined;
}
