import { toToolSchemas, type AnyAgentConfig } from '../agent/index.js';
import { InternalError } from '../errors/index.js';
import { buildEffectiveTools, buildMessagesForLLM } from '../orchestration/index.js';
import type { StoredMessage } from '../types/message.js';
import type { SessionState } from '../types/session.js';
import type { StepResult, ToolSchema } from '../types/llm.js';
import type { FirstStepReads } from './first-step-reads.js';
import { forgetWorkflow } from './stream-reset-tracker.js';
import { modelKeyOf, type StepEnvironment } from './step-scope.js';
import type { ChunkEmitter } from './stream-writers.js';

/** What an ahead call asked the model from: the first step's own reads, so the step knows the request is its own. */
interface CallBasis {
  agent: AnyAgentConfig;
  state: SessionState;
  history: StoredMessage[];
}

/** A delta the call streams. */
type DeltaChunk = { type: 'text_delta' | 'thinking'; delta: string };

/**
 * Calls started and not yet taken, per run: a step takes its own within milliseconds of its start, and a start that
 * does not run its step drops its call; the bound only caps what an unforeseen path could leave behind. It is far above
 * the starts one process makes at once: a call dropped for room is made again by its step (paid twice). It was 64,
 * which a burst of 128 starts exceeded.
 */
export const MAX_CALLS_AHEAD = 4096;

const ahead = new Map<string, FirstCallAhead>();

/**
 * A run's first model call, prepared by its launch (see {@link startFirstCallAhead}) and made as soon as DBOS recorded
 * its workflow's start, for its first LLM step to adopt: the call overlaps the run's begin, and its first delta is
 * flushed to the stream at once (readers see it before the step's record; the rest commit with that record). The step
 * adopts it only when it built its request from the same reads; otherwise it is discarded (aborted), and the step
 * resets the chunk it wrote.
 *
 * @example
 * const call = takeFirstCallAhead(input.runId);
 * const result = (await call?.madeFrom(agent, state, history)) === true ? call.adopt(signal) : undefined;
 */
export class FirstCallAhead {
  readonly #controller = new AbortController();
  #basis: Promise<CallBasis | undefined>;
  #result: Promise<StepResult> | undefined;
  #wrote = false;
  /** Deltas after the first, kept until the step adopts the call (then written through its stream writer). */
  #held: DeltaChunk[] | undefined = [];
  #emitter: ChunkEmitter | undefined;
  #startedAt = 0;
  #firstChunkAt: number | undefined;

  constructor(
    private readonly run: { sessionId: string; workflowId: string },
    environment: Promise<StepEnvironment>,
    reads: FirstStepReads,
    started: Promise<unknown>,
  ) {
    this.#basis = this.#call(environment, reads, started).catch(() => undefined);
  }

  /** When the model was called (ms since the epoch). */
  get startedAt(): number {
    return this.#startedAt;
  }

  /** When its first delta came, if one did. */
  get firstChunkAt(): number | undefined {
    return this.#firstChunkAt;
  }

  /** Whether it called the model with what `agent`, `state` and `history` make: the step's own request. */
  async madeFrom(agent: AnyAgentConfig, state: SessionState, history: readonly StoredMessage[]): Promise<boolean> {
    const basis = await this.#basis;
    return basis !== undefined && basis.agent === agent && basis.state === state && basis.history === history;
  }

  /**
   * The call's result, for the step: `signal` (its interrupt watch and cancellation) now stops it, and the deltas it
   * kept are written (those after go through at once), so they commit with the step's record.
   */
  async adopt(signal: AbortSignal): Promise<StepResult> {
    const result = this.#result;
    const emitter = this.#emitter;
    if (result === undefined || emitter === undefined) throw new InternalError('No call was made ahead.');
    if (signal.aborted) this.#controller.abort(signal.reason);
    else signal.addEventListener('abort', () => this.#controller.abort(signal.reason), { once: true });
    const held = this.#held ?? [];
    this.#held = undefined;
    await Promise.all(held.map((chunk) => emitter.emit(chunk)));
    return result;
  }

  /** Stop the call; returns whether it may have written chunks (the step that follows must reset them). */
  discard(): boolean {
    this.#controller.abort(new InternalError('The call made ahead was not adopted.'));
    return this.#wrote;
  }

  async #call(environment: Promise<StepEnvironment>, reads: FirstStepReads, started: Promise<unknown>): Promise<CallBasis | undefined> {
    const resolved = await environment;
    if (!firstCallMayGoAhead(resolved)) return undefined;
    const { dependencies, agent, emitter } = resolved;
    this.#emitter = emitter;
    // The model is called only once the run's workflow is durable (DBOS recorded its start), never before.
    const [flag, state, history] = await Promise.all([reads.flag, reads.state, reads.history, started]);
    const llm = dependencies.llmAdapter;
    if (flag.interrupted || state === null || llm === undefined || this.#controller.signal.aborted) return undefined;
    const emit = async (chunk: DeltaChunk): Promise<void> => {
      this.#firstChunkAt ??= Date.now();
      if (this.#held === undefined) return emitter.emit(chunk);
      if (this.#wrote) return void this.#held.push(chunk);
      // The first delta is flushed at once, lazily (readers see it before the step's record, which stores it for good);
      // the rest ride with the record.
      this.#wrote = true;
      await emitter.emit(chunk);
      void emitter.flushLazily().catch(() => undefined);
    };
    this.#startedAt = Date.now();
    this.#result = llm.generateStep(
      {
        messages: buildMessagesForLLM(agent, history, state.customState),
        tools: toolSchemasOf(agent),
        config: agent.llmConfig,
        agentType: agent.name,
        sessionId: this.run.sessionId,
        step: 1,
        abortSignal: this.#controller.signal,
        toolArgumentLimits: dependencies.toolArgumentLimits,
      },
      { onTextDelta: (delta) => emit({ type: 'text_delta', delta }), onThinkingDelta: (delta) => emit({ type: 'thinking', delta }) },
    );
    this.#result.catch(() => undefined); // adopted (and awaited) by the step, or discarded
    return { agent, state, history };
  }

  /** Discard it because no step will adopt it: its chunks are reset by the run's next LLM step in this process. */
  abandon(): void {
    if (this.discard()) forgetWorkflow(this.run.workflowId);
  }
}

/**
 * Whether a run's first model call may be made before its first LLM step: the step would call it with exactly what
 * its reads give (no beforeLLMCall hook to fire first, no skills catalog to read inside the step) and without a permit
 * of the fleet's model limits (none configured for its model).
 *
 * @example
 * if (firstCallMayGoAhead(environment)) startFirstCallAhead(run, Promise.resolve(environment), reads, started);
 */
export function firstCallMayGoAhead({ dependencies, agent, hooks }: Pick<StepEnvironment, 'dependencies' | 'agent' | 'hooks'>): boolean {
  if (dependencies.llmAdapter === undefined || agent.skills !== undefined || hooks.hasHooks('beforeLLMCall')) return false;
  const limiter = dependencies.modelLimiter;
  return limiter === undefined || limiter.limitOf(modelKeyOf({ dependencies, agent }) ?? '*') === undefined;
}

/**
 * Start run `runId`'s first model call ahead of its first LLM step (see {@link FirstCallAhead}), from `reads` (the
 * step's own, started by `startRunReadsAhead`) and the step's environment, once that says it may
 * ({@link firstCallMayGoAhead}); the step takes it with {@link takeFirstCallAhead}.
 *
 * @example
 * startFirstCallAhead({ runId, sessionId, workflowId }, stepEnvironment(scope, 1), reads, started);
 */
export function startFirstCallAhead(
  run: { runId: string; sessionId: string; workflowId: string },
  environment: Promise<StepEnvironment>,
  reads: FirstStepReads,
  started: Promise<unknown>,
): void {
  const call = new FirstCallAhead(run, environment, reads, started);
  ahead.delete(run.runId);
  ahead.set(run.runId, call);
  for (const [oldest, entry] of ahead) {
    if (ahead.size <= MAX_CALLS_AHEAD) break;
    ahead.delete(oldest);
    entry.abandon();
  }
}

/**
 * The call started ahead for run `runId` (taken once), or `undefined`.
 *
 * @example
 * const call = takeFirstCallAhead(input.runId);
 */
export function takeFirstCallAhead(runId: string): FirstCallAhead | undefined {
  const call = ahead.get(runId);
  ahead.delete(runId);
  return call;
}

/**
 * Discard the call started ahead for run `runId`, if any (its begin found it aborted, or its workflow did not start).
 *
 * @example
 * dropFirstCallAhead(input.runId);
 */
export function dropFirstCallAhead(runId: string): void {
  takeFirstCallAhead(runId)?.abandon();
}

const toolSchemaCache = new WeakMap<AnyAgentConfig, ToolSchema[]>();

/**
 * The tool schemas an agent's model calls are offered (cached per agent definition).
 *
 * @example
 * const tools = toolSchemasOf(agent);
 */
export function toolSchemasOf(agent: AnyAgentConfig): ToolSchema[] {
  let schemas = toolSchemaCache.get(agent);
  if (schemas === undefined) {
    schemas = toToolSchemas(buildEffectiveTools(agent));
    toolSchemaCache.set(agent, schemas);
  }
  return schemas;
}
