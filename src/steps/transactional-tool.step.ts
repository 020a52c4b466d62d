import { DBOSWorkflowConflictError, runTransaction } from '@dbos-inc/dbos-sdk/datasource';
import type { ServerTool } from '../agent/index.js';
import { APP_DATABASE_SOURCE_NAME, isAppDatabaseBound } from '../database/app-database.js';
import { currentAppTransactionScope } from '../database/app-transaction-scope.js';
import { ConfigurationError } from '../errors/index.js';
import { findEffectiveTool } from '../orchestration/index.js';
import { checkpointIdFor } from '../orchestration/ids.js';
import type { ToolOutcome } from '../orchestration/tool-outcome.js';
import { applyPatches } from '../state/index.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { JsonPatchOperation } from '../types/json-patch.js';
import type { ExecuteToolStepInput } from './execute-tool.step.js';
import { pauseUnlessInterrupted } from './interruptible-pause.js';
import { hookIdentity, stepEnvironment, type StepEnvironment } from './step-scope.js';
import { toolFailure } from './failure-text.js';
import { chunkKey } from './stream-writers.js';
import { attemptsAllowed, retryDelayMs } from './tool-retry-policy.js';
import { runTransactionalAttempt } from './transactional-attempt.js';
import { sessionDeletedError } from '../store/update-session-with-retry.js';
import { plannedToolMissing } from './planned-tool-missing.js';

/** The recorded name of a transactional tool call's durable operation (DBOS checks it on replay). */
export const TRANSACTIONAL_TOOL_STEP_NAME = 'TransactionalToolStep';

/** What the call's transaction records: the outcome the model sees and the state patches to stage. */
interface RecordedCall {
  outcome: ToolOutcome;
  patches: JsonPatchOperation[];
  /** A failure's sanitized form for the tool_end chunk (`outcome.error` is what the model reads). */
  streamed?: string;
}

/**
 * @internal Points of a transactional tool call where crash drills stop a worker: after `tool_start`, before the
 * first transaction (`before_transaction`), and after the COMMIT of the call's transaction, before DBOS records
 * the operation (`after_commit`).
 */
export type TransactionalProbePoint = 'before_transaction' | 'after_commit';
let probe: ((point: TransactionalProbePoint, toolCallId: string) => Promise<void>) | undefined;

/** @internal Install (or with `undefined` remove) the crash-drill probe. Never set in production. */
export function setTransactionalToolProbeForTesting(next: typeof probe): void {
  probe = next;
}

/**
 * A transactional tool call (`defineTransactionalTool`) as one durable DBOS transaction operation
 * (`runTransaction` on the app database) instead of an `ExecuteToolStep`. Its attempt's writes, the outcome and the
 * completion record commit in one Postgres transaction, so a call whose process dies at any point leaves its
 * writes once: a recovered run replays the committed outcome and never runs the tool again. Parity with
 * `ExecuteToolStep`: beforeTool, keyed tool_start/tool_end chunks, the retry policy (each attempt its own
 * transaction; the final error is recorded as the outcome), staged state patches, onStateChange, usage.
 * Post-commit effects are idempotent and run again when a recorded outcome is replayed. The turn loop routes
 * transactional calls here by itself; call it directly only from your own workflow body.
 *
 * @example
 * const outcome = await TransactionalToolStep.execute({ ...scope, step: 1, call, phase: 1 });
 */
export class TransactionalToolStep {
  /**
   * Run one call from a workflow body (takes its durable function id synchronously, like a step call).
   *
   * @throws ConfigurationError `APP_DATABASE_NOT_CONFIGURED` when this process has no app database.
   * @example
   * const outcome = await TransactionalToolStep.execute({ ...scope, step, call, phase: 1 });
   */
  static execute(input: ExecuteToolStepInput): Promise<ToolOutcome> {
    if (!isAppDatabaseBound()) return Promise.reject(appDatabaseRequired(input.call.toolName));
    return runTransaction(() => runCall(input), TRANSACTIONAL_TOOL_STEP_NAME, { dsName: APP_DATABASE_SOURCE_NAME });
  }
}

/**
 * The refusal for a transactional tool on an executor without `appDatabase`.
 *
 * @example
 * throw appDatabaseRequired('place_order');
 */
export function appDatabaseRequired(toolName: string): ConfigurationError {
  return new ConfigurationError(
    'APP_DATABASE_NOT_CONFIGURED',
    `Tool "${toolName}" is transactional: configure appDatabase on the DBOSAgentExecutor (constructed before DBOS.launch()).`,
    { toolName },
  );
}

async function runCall(input: ExecuteToolStepInput): Promise<ToolOutcome> {
  const scope = currentAppTransactionScope();
  const environment = await stepEnvironment(input, input.step);
  const { dependencies, agent, hooks, emitter } = environment;
  const { call } = input;
  const tool = findEffectiveTool(agent, call.toolName);
  if (tool === undefined || tool.kind !== 'server' || tool.transactional !== true) {
    throw plannedToolMissing('transactional', call.toolName, agent.name);
  }
  let recorded = (await scope.recorded<RecordedCall>())?.value;
  if (recorded === undefined) {
    await hooks.fire('beforeTool', { ...hookIdentity(input), toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
  }
  // Written on a replay too: the first execution's tool_start may still have been buffered when its process died
  // after the commit. The key makes the second write a no-op when the first one was stored.
  await emitter.emit(
    { type: 'tool_start', toolCallId: call.toolCallId, toolName: call.toolName, arguments: call.input },
    { key: chunkKey(input, 'tool_start', call.toolCallId) },
  );
  if (recorded === undefined) {
    await probe?.('before_transaction', call.toolCallId);
    const base = await seedState(dependencies.stateStore, input);
    recorded = await runAttempts(tool as ServerTool<any, unknown, Record<string, unknown>>, input, base, environment);
    await probe?.('after_commit', call.toolCallId);
  }
  await afterCall(input, recorded, environment);
  return recorded.outcome;
}

/** Each attempt in its own transaction; when all fail, the last error is committed as the call's outcome. */
async function runAttempts(
  tool: ServerTool<any, unknown, Record<string, unknown>>,
  input: ExecuteToolStepInput,
  base: Record<string, unknown>,
  { dependencies, emitter }: StepEnvironment,
): Promise<RecordedCall> {
  const scope = currentAppTransactionScope();
  const startedAt = Date.now();
  const attempts = attemptsAllowed(dependencies.toolRetryPolicy);
  const emit = emitter.emit.bind(emitter);
  let failure = { forModel: 'The tool did not run.', forStream: 'TOOL_ERROR: The tool did not run.' };
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      return await scope.commit(async (client) => {
        const { result, patches } = await runTransactionalAttempt(tool, input, base, client, emit);
        return { outcome: outcomeOf(input, { success: true, result }, Date.now() - startedAt), patches };
      });
    } catch (error) {
      // Another execution owns the workflow now: rethrow as is, never record it as the call's outcome.
      if (error instanceof DBOSWorkflowConflictError || (error instanceof Error && error.name === 'DBOSWorkflowConflictError')) throw error;
      failure = toolFailure(input.call.toolName, error, { sessionId: input.sessionId, toolCallId: input.call.toolCallId, attempt });
      if (attempt < attempts) {
        dependencies.logger.warn('tool.retry', { sessionId: input.sessionId, toolCallId: input.call.toolCallId, attempt });
        if (await pauseUnlessInterrupted(dependencies.stateStore, input.sessionId, retryDelayMs(dependencies.toolRetryPolicy, attempt))) break;
      }
    }
  }
  const failed: RecordedCall = {
    outcome: outcomeOf(input, { success: false, error: failure.forModel }, Date.now() - startedAt),
    patches: [],
    streamed: failure.forStream,
  };
  return scope.commit(async () => failed);
}

function outcomeOf(
  input: ExecuteToolStepInput,
  ending: { success: true; result: unknown } | { success: false; error: string },
  durationMs: number,
): ToolOutcome {
  const { call } = input;
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    index: call.index,
    resultMessageId: call.resultMessageId,
    input: call.input,
    ...ending,
    durationMs,
  };
}

/** Effects after the commit, all idempotent: staged patches (by call id), keyed chunks, hooks, usage (by id). */
async function afterCall(
  input: ExecuteToolStepInput,
  { outcome, patches, streamed }: RecordedCall,
  { dependencies, hooks, emitter }: StepEnvironment,
): Promise<void> {
  const { call } = input;
  if (outcome.success && patches.length > 0) {
    await dependencies.stateStore.stageChanges(input.sessionId, { stepId: checkpointIdFor(input.runId, input.step), stagingKey: call.toolCallId, patches });
    await emitter.emit({ type: 'state_patch', patches }, { key: chunkKey(input, 'state_patch', call.toolCallId) });
    await hooks.fire('onStateChange', { ...hookIdentity(input), toolCallId: call.toolCallId, patches });
  }
  const ending = outcome.success ? { result: outcome.result } : { error: streamed ?? outcome.error ?? 'The tool failed.' };
  await emitter.emit(
    { type: 'tool_end', toolCallId: call.toolCallId, toolName: call.toolName, ...ending },
    { key: chunkKey(input, 'tool_end', call.toolCallId) },
  );
  await emitter.flush();
  await dependencies.usageStore?.record([
    {
      id: `${input.runId}:${input.step}:tool:${call.toolCallId}`,
      sessionId: input.sessionId,
      runId: input.runId,
      kind: 'tool',
      name: call.toolName,
      step: input.step,
      durationMs: outcome.durationMs,
      success: outcome.success,
      createdAt: Date.now(),
      rootSessionId: input.rootSessionId ?? input.sessionId,
    },
  ]);
}

/** Phase 1 tools seed from the committed state; phase 2 tools also see the step's other staged writes. */
async function seedState(stateStore: SessionStateStore, input: ExecuteToolStepInput): Promise<Record<string, unknown>> {
  const state = await stateStore.loadState(input.sessionId);
  if (state === null) throw sessionDeletedError(input.sessionId);
  if (input.phase === 1) return state.customState;
  const staged = await stateStore.getStagedChanges(input.sessionId, checkpointIdFor(input.runId, input.step));
  return applyPatches(
    state.customState,
    staged.filter((row) => row.stagingKey !== input.call.toolCallId).flatMap((row) => row.patches),
  );
}
