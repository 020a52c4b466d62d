import type { JournalKind } from '../types/journal.js';
import type { QueueOptions } from '../orchestration/queue-placement.js';
import type { AppDatabaseConfig } from '../database/app-database.js';
import type { ToolArgumentLimits } from '../orchestration/tool-argument-limits.js';
import type { HookManager } from '../hooks/index.js';
import type { AgentHooks, Logger } from '../hooks/types.js';
import type { LLMAdapter } from '../llm/adapter.js';
import type { ToolRetryPolicy } from '../steps/tool-retry-policy.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { AgentResult } from '../types/result.js';
import type { DBOSAgentMode, SessionState } from '../types/session.js';
import type { StreamChunk } from '../types/stream.js';
import type { UsageStore } from '../usage/usage-store.js';
import type { TelemetryOptions } from '../telemetry/agent-telemetry.js';
import type { ModelLimiter } from '../limits/model-limits.js';

/**
 * Configuration of `DBOSAgentExecutor`. `stateStore` and `streamManager` are required; `llmAdapter` is required in
 * every process that runs agents (a process that only enqueues runs on queues leaves it out).
 *
 * @example
 * const config: DBOSAgentExecutorConfig = { stateStore, streamManager, llmAdapter: new VercelAIAdapter({ model }) };
 */
export interface DBOSAgentExecutorConfig {
  /** Session data, messages and checkpoints. `PostgresStateStore` recommended. */
  stateStore: SessionStateStore;
  /** Real-time chunks. `PostgresStreamManager` (embedded) or `RedisStreamManager`. */
  streamManager: StreamManager;
  /**
   * The LLM adapter (e.g. `VercelAIAdapter`). Without it this executor only enqueues: it starts runs of agents that
   * have a queue (the agent's `queue` or this config's) and refuses the others with `NO_LLM_ADAPTER`.
   */
  llmAdapter?: LLMAdapter;
  /**
   * The DBOS queue runs started by `execute()`, `resume()` and `retry()` are enqueued on when their agent names none
   * (`^[A-Za-z0-9_.:-]{1,64}$`; registered with `DBOS.registerQueue` by the processes that run them). Persistent
   * sessions and sub-agent children are not affected (they run on their own agent's `queue`, else in place).
   */
  queue?: string;
  /** Token and tool-duration metering. */
  usageStore?: UsageStore;
  /**
   * Fleet-wide limits of LLM calls per model key (`PostgresModelLimiter`): every LLM step takes a permit first and
   * waits inside the step (announced as a `rate_limited` chunk, interruptible) while the fleet is at the limit.
   */
  modelLimiter?: ModelLimiter;
  /** Hooks fired for every run (before agent and per-call hooks). */
  hookManager?: HookManager;
  /** Defaults to a no-op logger. */
  logger?: Logger;
  /**
   * Persistent sessions: with no message for this long (ms, durable time) a session ends with completion reason
   * `idle_timeout` (the next message starts it again). Default 86 400 000 (24 h); `execute()` may override it.
   */
  defaultPersistentIdleTimeoutMs?: number;
  /**
   * Persistent sessions: how long a session's workflow waits warm for the next message after a turn (a message
   * then starts its turn at once) before it parks — the workflow ends, nothing stays in memory or polls, and the
   * next message restarts the session from the store. Default 60 000.
   */
  persistentWarmWindowMs?: number;
  /** Server-tool retries. Default: 3 attempts, 1 s, ×2, at most 60 s. */
  toolRetryPolicy?: ToolRetryPolicy;
  /**
   * The step journal of this process (see README "Step journal"): `fused` (default; each step's DBOS record and its
   * effects in one transaction when the stores are on DBOS's system database; needs a DBOS release it was verified
   * against, else `public`) or `public` (`DBOS.runStep` only). Default: `HELIX_JOURNAL` from the environment, else
   * `fused`. Either journal replays the other's runs; the last executor constructed in a process decides.
   */
  journal?: JournalKind;
  /**
   * Bounds on tool arguments from the model (defaults `DEFAULT_TOOL_ARGUMENT_LIMITS`: 64 levels, 256 KiB). A call past
   * them gets a short tool error instead of being parsed and stored.
   */
  toolArgumentLimits?: Partial<ToolArgumentLimits>;
  /**
   * How long a run waiting for a client tool result or an approval stays warm (a submission continues it in
   * place, same runId) before it parks durably and ends its workflow (then `resume()` continues it). Default 60 000.
   */
  hitlWarmWindowMs?: number;
  /**
   * Resume a parked run by itself once its last pending call is answered through `submitToolResult()` (which
   * then answers `next: 'resumed'`). Exactly one run starts under concurrent submits. Default false.
   */
  autoResumeOnSubmit?: boolean;
  /**
   * The application's own Postgres, where tools defined with `defineTransactionalTool` write exactly once. The
   * constructor registers it with DBOS, so construct the executor before `DBOS.launch()`. Without it, running an
   * agent with a transactional tool throws `ConfigurationError` (`APP_DATABASE_NOT_CONFIGURED`).
   */
  appDatabase?: AppDatabaseConfig;
  /**
   * OpenTelemetry traces and metrics of every run (README "Observability"): on by default through the global tracer
   * and meter providers (no-ops until you register an SDK); `false` turns them off; a tracer or meter can be injected.
   * Prompt and tool content stays off spans unless `captureContent` says otherwise. The last executor constructed in a
   * process decides.
   */
  telemetry?: TelemetryOptions | false;
}

/**
 * Options of `execute()`.
 *
 * @example
 * await executor.execute(agent, 'Hello', { sessionId: 'chat-1', hooks: { afterTool: log } });
 */
export interface ExecuteOptions extends QueueOptions {
  /** Required: the session (conversation) to run in. */
  sessionId: string;
  /**
   * Written once at session creation. Default 'standard'. `'persistent'`: one long-lived workflow per session
   * receives every message (`execute()` again sends the next one; each message is one turn with its own run).
   */
  mode?: DBOSAgentMode;
  /** Persistent mode: the session's idle timeout from this message on (ms). Default `defaultPersistentIdleTimeoutMs`. */
  idleTimeoutMs?: number;
  /** Hooks for this call only (after the constructor's and the agent's). */
  hooks?: AgentHooks;
  /** A hook manager for this call only (fires last). */
  hookManager?: HookManager;
  userId?: string;
  tags?: string[];
  metadata?: Record<string, string>;
  /** Meter this run (its LLM calls and tools) into this store instead of the executor's `usageStore`. */
  usageStore?: UsageStore;
  /** Start the new session `sessionId` as a branch of another session at one of its checkpoints. */
  branch?: { fromSessionId: string; checkpointId?: string };
  /**
   * A W3C `traceparent` of the caller (e.g. an incoming request's header; `AgentServer` passes the one its start
   * routes receive): the run's spans join that trace, its `invoke_agent` span a child of the caller's span. Recorded
   * with the run's workflow input, so a recovered run keeps it, and kept by the session's later runs (resume, retry,
   * next turns) unless one passes another. Standard sessions only: a persistent session's turns stay in the session's
   * own trace. Without it a run is in its session tree's trace.
   *
   * @throws InvalidArgumentError `INVALID_ARGUMENT` (from `execute()`, before anything is written) for a value that is
   *   not a version-00 `traceparent` with non-zero ids.
   * @example
   * await executor.execute(agent, 'Hello', { sessionId: 's1', traceparent: request.headers.get('traceparent') ?? undefined });
   */
  traceparent?: string;
}

/**
 * Options of `resume()`.
 * - `continue` (default): carry on from the durable history (and settle a parked human-in-the-loop step).
 * - `with_message`: append `message` as a user turn first.
 * - `with_confirmation`: append `message` (default "Confirmed.") as the user's confirmation first.
 * - `from_checkpoint`: rewind messages and state to `checkpointId` (default: the latest) first.
 *
 * @example
 * await executor.resume(agent, 's1', { mode: 'with_message', message: 'Use metric units.' });
 */
export interface ResumeOptions extends QueueOptions {
  mode?: 'continue' | 'with_message' | 'with_confirmation' | 'from_checkpoint';
  message?: string;
  checkpointId?: string;
  hooks?: AgentHooks;
  hookManager?: HookManager;
}

/**
 * Options of `retry()`.
 *
 * @example
 * await executor.retry(agent, 's1', { hooks: { onAgentResumed: log } });
 */
export interface RetryOptions extends QueueOptions {
  hooks?: AgentHooks;
  hookManager?: HookManager;
}

/**
 * A run being observed: stream its chunks, await its result, read its session.
 *
 * @example
 * const handle = await executor.execute(agent, 'Hi', { sessionId });
 * for await (const chunk of handle.stream()) if (chunk.type === 'text_delta') process.stdout.write(chunk.delta);
 * const result = await handle.result();
 */
export interface AgentExecutionHandle<TOutput = unknown> {
  readonly sessionId: string;
  readonly runId: string;
  /** The DBOS workflow id of this run. */
  readonly workflowId: string;
  /** This run's chunks: what was written since the run started, then live ones, until the run ends. */
  stream(): AsyncIterable<StreamChunk>;
  /** The run's outcome (waits for it). */
  result(): Promise<AgentResult<TOutput>>;
  /** The session's current durable state. */
  getState(): Promise<SessionState | null>;
  /** True when the session can be resumed (interrupted, or waiting for client tool results). */
  canResume(): Promise<boolean>;
  /** Continue a completed session with a new user turn (a new run). */
  send(input: string | { message: string; state?: Record<string, unknown> }): Promise<AgentExecutionHandle<TOutput>>;
  /** Resume an interrupted or parked session (see `DBOSAgentExecutor.resume`). */
  resume(options?: ResumeOptions): Promise<AgentExecutionHandle<TOutput>>;
  /** Re-run a failed session from its message history (see `DBOSAgentExecutor.retry`). */
  retry(options?: RetryOptions): Promise<AgentExecutionHandle<TOutput>>;
  /**
   * Durable interrupt: resolves once the request is stored (any process sees it). The run ends `interrupted` at its
   * next step boundary, within ~50 ms during an LLM call, or at once if it waits for a human; from then on `result()`
   * answers `interrupted` (never the warm `suspended_client_tool`), and a `resume()` waits for the run to stop, then
   * starts a new run (`previousRunId` = the interrupted one).
   */
  interrupt(reason?: string): Promise<void>;
  /** Cancel the run: it ends `aborted` and the session is not resumable. */
  abort(reason?: string): Promise<void>;
}
