import type { AnyAgentConfig } from '../agent/index.js';
import { HelixError } from '../errors/helix-error.js';
import type { HookManager} from '../hooks/index.js';
import { HookManagerRegistry } from '../hooks/index.js';
import type { Logger } from '../hooks/types.js';
import type { LLMAdapter } from '../llm/adapter.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { ModelLimiter } from '../limits/model-limits.js';
import type { UsageStore } from '../usage/usage-store.js';
import type { ToolArgumentLimits } from '../orchestration/tool-argument-limits.js';
import type { ToolRetryPolicy } from './tool-retry-policy.js';

/**
 * The process-local dependencies every durable step uses. Bound by the `DBOSAgentExecutor` constructor;
 * steps that run before binding (a recovered workflow in a process still starting) wait for it.
 */
export interface RuntimeDependencies {
  stateStore: SessionStateStore;
  streamManager: StreamManager;
  /** Absent in a process that only enqueues runs (its CallLLMStep refuses with `NO_LLM_ADAPTER`). */
  llmAdapter?: LLMAdapter;
  usageStore?: UsageStore;
  /** Fleet-wide limits of LLM calls (the executor's `modelLimiter`). */
  modelLimiter?: ModelLimiter;
  hookManager: HookManager;
  logger: Logger;
  toolRetryPolicy: Required<ToolRetryPolicy>;
  /** Bounds on the model's tool arguments (screened inside CallLLMStep). */
  toolArgumentLimits: ToolArgumentLimits;
  /** Warm window and idle timeout of persistent sessions the runtime starts itself (companions). */
  persistentWindows: { idleWarmWindowMs: number; idleTimeoutMs: number };
}

/** How long a step waits for the executor to be constructed (or an agent registered) before failing. */
const BINDING_WAIT_MS = 120_000;
let bindingWaitMs = BINDING_WAIT_MS;

/** @internal Shorten the binding wait (tests of a run whose agent never registers). `undefined` restores the default. */
export function setBindingWaitMsForTesting(ms: number | undefined): void {
  bindingWaitMs = ms ?? BINDING_WAIT_MS;
}

class Slot<T> {
  private current: T | undefined;
  private waiters: Array<(value: T) => void> = [];

  set(value: T): void {
    this.current = value;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake(value);
  }

  peek(): T | undefined {
    return this.current;
  }

  async get(what: string): Promise<T> {
    if (this.current !== undefined) return this.current;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== wake);
        reject(new HelixError('RUNTIME_NOT_READY', `Timed out waiting for ${what}; construct the DBOSAgentExecutor and register agents before DBOS.launch().`));
      }, bindingWaitMs);
      timer.unref();
      const wake = (value: T): void => {
        clearTimeout(timer);
        resolve(value);
      };
      this.waiters.push(wake);
    });
  }
}

const dependencies = new Slot<RuntimeDependencies>();
const agents = new Map<string, Slot<AnyAgentConfig>>();

/** Per-workflow hook managers (constructor → agent.hooks → options hooks), process-local. */
export const workflowHookManagers = new HookManagerRegistry();

/** @internal Bind the dependencies steps use (the executor constructor calls this). */
export function bindRuntimeDependencies(value: RuntimeDependencies): void {
  dependencies.set(value);
}

/** @internal The bound dependencies, waiting for binding if needed. */
export async function runtimeDependencies(): Promise<RuntimeDependencies> {
  return dependencies.get('the DBOSAgentExecutor to be constructed');
}

/** @internal The bound dependencies if any. */
export function peekRuntimeDependencies(): RuntimeDependencies | undefined {
  return dependencies.peek();
}

/**
 * Swap the LLM adapter (and optionally the stream manager) used by `CallLLMStep`. Internal: the executor
 * constructor binds these from its config; end-to-end test harnesses use it to switch adapters between runs.
 *
 * @example
 * bindCallLLMStep(new MockLLMAdapter([{ type: 'text', text: 'hi' }]));
 */
export function bindCallLLMStep(llmAdapter: LLMAdapter, streamManager?: StreamManager): void {
  const current = dependencies.peek();
  if (current === undefined) throw new HelixError('RUNTIME_NOT_READY', 'bindCallLLMStep: construct the DBOSAgentExecutor first.');
  dependencies.set({ ...current, llmAdapter, ...(streamManager === undefined ? {} : { streamManager }) });
}

/**
 * Register an agent (and the agents of its sub-agent tools) in this process so recovered workflows can find
 * their tools and hooks. `execute()`,
 * `resume()` and `retry()` call it; a process that only recovers runs must call it before `DBOS.launch()`.
 * Idempotent; re-registering a name with a different definition replaces it (last writer wins) with a warning.
 *
 * @example
 * registerAgent(researchAgent);
 * new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter });
 * await DBOS.launch(); // recovers pending research runs
 */
export function registerAgent(agent: AnyAgentConfig): void {
  registerTree(agent, new Set());
}

/** Register an agent and, recursively, the agents of its sub-agent tools (their child runs may be recovered here). */
function registerTree(agent: AnyAgentConfig, seen: Set<AnyAgentConfig>): void {
  if (seen.has(agent)) return;
  seen.add(agent);
  registerOne(agent);
  for (const tool of agent.tools ?? []) {
    if (tool.kind === 'subagent') registerTree(tool.agent, seen);
  }
  for (const entry of agent.persistentAgents ?? []) registerTree(entry.agent, seen);
}

function registerOne(agent: AnyAgentConfig): void {
  let slot = agents.get(agent.name);
  if (slot === undefined) {
    slot = new Slot<AnyAgentConfig>();
    agents.set(agent.name, slot);
  }
  const previous = slot.peek();
  if (previous !== undefined && previous !== agent) {
    dependencies.peek()?.logger.warn('agent.reregistered', { agentType: agent.name });
  }
  slot.set(agent);
}

/** @internal Per-call usage stores (`ExecuteOptions.usageStore`) by workflow id; steps prefer them over the executor's. */
export const workflowUsageStores = new Map<string, UsageStore>();

/** @internal The agent registered in this process under `agentType`, if any (no waiting). */
export function peekRegisteredAgent(agentType: string): AnyAgentConfig | undefined {
  return agents.get(agentType)?.peek();
}

/** @internal The registered agent, waiting for registration if needed. */
export async function resolveRegisteredAgent(agentType: string): Promise<AnyAgentConfig> {
  let slot = agents.get(agentType);
  if (slot === undefined) {
    slot = new Slot<AnyAgentConfig>();
    agents.set(agentType, slot);
  }
  return slot.get(`agent "${agentType}" to be registered`);
}

/** @internal The hook manager for a workflow: its own if registered in this process, else the executor's. */
export function hookManagerFor(workflowId: string, fallback: HookManager): HookManager {
  return workflowHookManagers.resolve(workflowId, fallback);
}
