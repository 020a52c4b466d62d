import { AsyncLocalStorage } from 'node:async_hooks';
import { DBOS, type WorkflowHandle } from '@dbos-inc/dbos-sdk';
import type { AnyAgentConfig } from '../agent/index.js';
import { AgentAlreadyRunningError, InternalError } from '../errors/index.js';
import { mergeHookManagers, type HookManager } from '../hooks/index.js';
import { sessionSignal, watchRunChange, type RunChangeWatch } from '../steps/run-signals.js';
import { workflowHookManagers, workflowUsageStores } from '../steps/runtime-registry.js';
import type { UsageStore } from '../usage/usage-store.js';
import type { RunRecord } from '../types/session.js';
import { beginSessionWrite } from '../steps/begin-run.js';
import { atRunBoundary } from '../steps/run-boundary-probe.js';
import { dropFirstStepReads, startRunReadsAhead } from '../steps/first-step-reads.js';
import type { StreamInfo } from '../types/stream.js';
import type { KnownReads } from './execute-reads.js';
import type { AgentWorkflowInput } from '../workflows/agent.workflow.js';
import { standardWorkflowId } from '../orchestration/ids.js';
import { DBOSAgentHandle, type HandleCallbacks } from './agent-handle.js';
import type { AgentExecutionHandle, DBOSAgentExecutorConfig, ExecuteOptions } from './types.js';

/** How long a concurrent call waits for the winning call's run record to appear. */
const RUN_RECORD_WAIT_MS = 10_000;
/** A run record older than this without a DBOS workflow lost its start to a crash: start it again. */
const ORPHANED_RUN_AFTER_MS = 2_000;
/** Default warm window of a human-in-the-loop wait. */
export const DEFAULT_HITL_WARM_WINDOW_MS = 60_000;

/** The turn-specific part of a workflow input. */
export type { TurnInput } from '../orchestration/resume-turn.js';
import { journalStamp } from '../journal/format.js';
import { startWriteOptions, withStartWrites, type StartWriter } from './start-writes.js';
import { recordedWorkflowInput } from '../orchestration/workflow-input.js';
import { currentPlacement, placeRun, withPlacement, type PlacementOptions } from './run-placement.js';
import { localHandle, startRunWorkflow } from './run-workflow-start.js';
import type { PlannedTurn } from './run-trace.js';
import { joinedStart, launchJoined, turnStoredTogether, type Launch } from './joined-launch.js';

/**
 * A run's start as planned before its writes: its workflow input and the session's previous run.
 *
 * @example
 * const planned: PlannedRun = await launcher.planRun(agent, sessionId, runId, { userMessage });
 */
export interface PlannedRun {
  input: AgentWorkflowInput;
  previous: RunRecord | null;
  /** The session's stream as read before the writes (`null`: none yet). */
  stream: StreamInfo | null;
}

/** @internal Starts runs (run record, hooks, workflow) and builds handles for the executor. */
export class RunLauncher {
  private readonly deferred = new AsyncLocalStorage<AgentWorkflowInput[]>();

  constructor(
    private readonly config: DBOSAgentExecutorConfig,
    private readonly hookManager: HookManager,
    private readonly callbacks: (agent: AnyAgentConfig, sessionId: string) => HandleCallbacks,
  ) {}

  /** Record the run (its writes in one transaction, see `withStartWrites`) and launch it (`recordAndLaunch`). */
  async startRun(
    agent: AnyAgentConfig,
    sessionId: string,
    runId: string,
    turn: PlannedTurn,
    options: Pick<ExecuteOptions, 'hooks' | 'hookManager' | 'usageStore'>,
  ): Promise<AgentExecutionHandle<any>> {
    const planned = await this.planRun(agent, sessionId, runId, turn);
    const handle = await this.recordAndLaunch(agent, planned, (writer) => this.recordRun(writer, planned), options);
    if (handle === undefined) throw new InternalError('A run start was refused without an error.');
    return handle;
  }

  /**
   * What a run's start records, from reads taken before its writes (a start transaction must not wait for a pool
   * connection while concurrent starts of the same session hold theirs): the workflow input and the previous run
   * (`known.previous` when the caller read it already; `known.stream`, the stream under the session's id, likewise,
   * read after the session). A run without a `trace` of its own keeps the previous run's (a remote caller's trace
   * stays the session's for its resumes, retries and turns).
   */
  async planRun(agent: AnyAgentConfig, sessionId: string, runId: string, turn: PlannedTurn, known?: KnownReads): Promise<PlannedRun> {
    const { stateStore, streamManager } = this.config;
    const streamId = sessionId;
    const stream = known?.stream === undefined ? await streamManager.getInfo(streamId) : await known.stream;
    const startSequence = stream?.lastSequence ?? 0;
    const previous = known === undefined ? await stateStore.getCurrentRun(sessionId) : known.previous;
    const { trace: given, ...turnInput } = turn;
    const trace = given ?? recordedWorkflowInput(previous?.metadata)?.trace;
    const workflowId = standardWorkflowId(agent.name, sessionId, runId);
    const queue = currentPlacement();
    const input: AgentWorkflowInput = {
      sessionId,
      runId,
      agentType: agent.name,
      streamId,
      workflowId,
      startSequence,
      rootSessionId: sessionId,
      warmWindowMs: this.config.hitlWarmWindowMs ?? DEFAULT_HITL_WARM_WINDOW_MS,
      ...turnInput,
      ...(trace === undefined ? {} : { trace }),
      journal: journalStamp(),
      ...(queue === undefined ? {} : { queue }),
    };
    return { input, previous, stream };
  }

  /**
   * Record a planned run through `writer` (a stale interrupt flag cleared, the run record holding its workflow input):
   * inside a caller's `withStartWrites`, with the start's other writes. Launch it once that committed. A fresh turn
   * (a user message, no resume) whose writes commit together is stored with it (`turnStored`): its begin writes
   * nothing. `sessionCreated`: the same transaction created the session (its step count is 0 already);
   * `sessionLocked`: it holds the session's row (a status swap before this).
   */
  async recordRun(writer: StartWriter, planned: PlannedRun, options: { sessionCreated?: boolean; sessionLocked?: boolean } = {}): Promise<AgentWorkflowInput> {
    const { previous } = planned;
    const input = writer.together ? turnStoredTogether(planned.input) : planned.input;
    // An interrupt that an earlier run ended without observing (e.g. one sent during its last step) must not stop this
    // run; nor one left on a session this start took (joined, its swap cleared it already).
    if (previous !== null || options.sessionLocked === true) await writer.clearInterruptFlag(input.sessionId);
    const startWrite = startWriteOptions(previous, options);
    await writer.createRun(input.sessionId, {
      runId: input.runId,
      status: 'running',
      stepCount: 0,
      startSequence: input.startSequence,
      workflowId: input.workflowId,
      startedAt: Date.now(),
      ...(previous === null ? {} : { previousRunId: previous.runId }),
      metadata: { workflowInput: input },
    }, startWrite);
    if (input.turnStored === true && input.userMessage !== undefined) {
      await writer.appendMessages(input.sessionId, [{ ...input.userMessage, createdAt: input.userMessage.createdAt ?? Date.now() }], startWrite);
      if (options.sessionCreated !== true) await writer.saveState(input.sessionId, beginSessionWrite(input), startWrite);
      // A session's later turns reactivated its stream in this transaction already.
      if (previous === null) await writer.openStream(input.streamId, input.agentType);
    }
    return input;
  }

  /** Register a recorded run's hooks and start its workflow (deterministic id). */
  async launchRun(
    agent: AnyAgentConfig,
    input: AgentWorkflowInput,
    options: Pick<ExecuteOptions, 'hooks' | 'hookManager' | 'usageStore'>,
  ): Promise<AgentExecutionHandle<any>> {
    const launch = this.launching(agent, input, options);
    const startsHere = this.deferred.getStore() === undefined && input.queue === undefined;
    const starting = this.startWorkflow(input);
    const readsAhead = startsHere && startRunReadsAhead(this.config, input, launch.ahead(starting));
    let live: WorkflowHandle<unknown> | undefined;
    try {
      live = await starting;
    } catch (error) {
      launch.failed(readsAhead);
      throw error;
    }
    return launch.handle(live);
  }

  /**
   * Record a planned run through `write` (`recordRun` inside a caller's start writes; `undefined`: refused, nothing
   * starts) and launch it. Where the journal joins workflow starts to a transaction (`joinedStart`), DBOS's record of
   * the workflow's start commits with the run's writes: one transaction, and no run recorded without its workflow.
   */
  async recordAndLaunch(
    agent: AnyAgentConfig,
    planned: PlannedRun,
    write: (writer: StartWriter) => Promise<AgentWorkflowInput | undefined>,
    options: Pick<ExecuteOptions, 'hooks' | 'hookManager' | 'usageStore'>,
  ): Promise<AgentExecutionHandle<any> | undefined> {
    const join = this.deferred.getStore() === undefined ? await joinedStart(this.config, planned.input) : undefined;
    if (join === undefined) {
      const recorded = await withStartWrites(this.config, write);
      if (recorded === undefined) return undefined;
      await atRunBoundary('start_recorded', recorded.sessionId);
      return this.launchRun(agent, recorded, options);
    }
    return launchJoined(join, this.config, planned.input, write, this.launching(agent, planned.input, options));
  }

  /** A run's launch: its hooks registered, its signals watched from before its workflow starts. */
  private launching(
    agent: AnyAgentConfig,
    input: AgentWorkflowInput,
    options: Pick<ExecuteOptions, 'hooks' | 'hookManager' | 'usageStore'>,
  ): Launch {
    const { sessionId, runId, workflowId, startSequence } = input;
    const hooks = mergeHookManagers(this.hookManager, agent.hooks, options.hooks, options.hookManager);
    workflowHookManagers.register(workflowId, hooks);
    if (options.usageStore !== undefined) workflowUsageStores.set(workflowId, options.usageStore);
    // Listening before the workflow starts: no signal of the run can come before it.
    const watch = input.queue === undefined ? watchRunChange([runId, sessionSignal(sessionId)]) : undefined;
    return {
      ahead: (started) => ({ companions: agent.persistentAgents.length, hooks, started }),
      failed: (readsAhead) => {
        watch?.release();
        if (readsAhead) dropFirstStepReads(runId);
      },
      refused: () => {
        watch?.release();
        workflowHookManagers.unregister(workflowId);
        workflowUsageStores.delete(workflowId);
      },
      handle: (live) => {
        const local = localHandle(input, live);
        if (local === undefined) watch?.release();
        const signals = local === undefined ? undefined : watch;
        return this.handleFor(agent, sessionId, { runId, workflowId, startSequence }, local, undefined, signals);
      },
    };
  }

  /**
   * The session is active: a handle to its current run (waiting briefly for a concurrent winner to record
   * it), restarting the run's workflow if a crash came between the run record and the workflow start. With
   * `message` (execute), the run must be the turn of that same message, else `AGENT_ALREADY_RUNNING`.
   */
  async handleOfRunningSession(
    agent: AnyAgentConfig,
    sessionId: string,
    previousRunId: string | undefined,
    message?: string,
  ): Promise<AgentExecutionHandle<any>> {
    const deadline = Date.now() + RUN_RECORD_WAIT_MS;
    for (;;) {
      const run = await this.config.stateStore.getCurrentRun(sessionId);
      if (run !== null && run.runId !== previousRunId && run.workflowId !== undefined) {
        const input = recordedWorkflowInput(run.metadata);
        // A call repeating the running turn's own message gets its handle (idempotent retries); another message
        // must not be dropped silently.
        if (message !== undefined && input?.userMessage?.content !== message) throw new AgentAlreadyRunningError(sessionId, run.status);
        if ((await DBOS.getWorkflowStatus(run.workflowId)) !== null) return this.handleFor(agent, sessionId, run);
        if (input === undefined) throw new AgentAlreadyRunningError(sessionId, 'active');
        if (Date.now() - run.startedAt > ORPHANED_RUN_AFTER_MS)
          return this.handleFor(agent, sessionId, run, localHandle(input, await this.startWorkflow(input)));
      }
      if (Date.now() > deadline) throw new AgentAlreadyRunningError(sessionId, 'active');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** A handle for a recorded run. */
  handleFor(
    agent: AnyAgentConfig,
    sessionId: string,
    run: Pick<RunRecord, 'runId' | 'workflowId' | 'startSequence'>,
    liveHandle?: WorkflowHandle<unknown>,
    usageStore?: UsageStore,
    signalsSinceStart?: RunChangeWatch,
  ): AgentExecutionHandle<any> {
    const workflowId = run.workflowId ?? standardWorkflowId(agent.name, sessionId, run.runId);
    return new DBOSAgentHandle(sessionId, run.runId, workflowId, {
      stateStore: this.config.stateStore,
      streamManager: this.config.streamManager,
      streamId: sessionId,
      startSequence: run.startSequence,
      callbacks: this.callbacks(agent, sessionId),
      ...(liveHandle === undefined ? {} : { liveHandle }),
      ...(usageStore === undefined ? {} : { usageStore }),
      ...(signalsSinceStart === undefined ? {} : { signalsSinceStart }),
    });
  }

  /**
   * Run `call` (a run start of `agent`) with its runs placed where `options` and the agent's (else the executor's)
   * queue say: decided and checked before `call` writes anything, then recorded in each planned run's input.
   *
   * @throws ConfigurationError / InvalidArgumentError as `placeRun` does.
   */
  async placing<T>(agent: AnyAgentConfig, options: PlacementOptions, call: () => Promise<T>): Promise<T> {
    return withPlacement(await placeRun(this.config, agent, options), call);
  }

  /**
   * Run `call` with workflow starts deferred: they are collected instead of started (the caller, a step of a
   * user's workflow, records them; the workflow body then starts them as child workflows with `launch`).
   */
  async deferringLaunches<T>(call: () => Promise<T>): Promise<{ value: T; launches: AgentWorkflowInput[] }> {
    const launches: AgentWorkflowInput[] = [];
    const value = await this.deferred.run(launches, call);
    return { value, launches };
  }

  /** Start a run's workflow (a child workflow when called from a workflow body; the id makes it start once). */
  async launch(input: AgentWorkflowInput): Promise<WorkflowHandle<unknown>> {
    return startRunWorkflow(input);
  }

  private async startWorkflow(input: AgentWorkflowInput): Promise<WorkflowHandle<unknown> | undefined> {
    const deferred = this.deferred.getStore();
    if (deferred !== undefined) {
      deferred.push(input);
      return undefined;
    }
    return startRunWorkflow(input);
  }
}
