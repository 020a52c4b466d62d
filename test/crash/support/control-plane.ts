/**
 * The parent test process as the "API server" of the human-in-the-loop drills: it launches DBOS under its own
 * executor id and application version (so it never recovers — or runs — a worker's workflow) and answers,
 * interrupts and aborts runs that live in worker processes, through the public executor API. It never runs
 * an agent: its LLM adapter refuses every call.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { expect } from 'vitest';
import type { AnyAgentConfig } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import type { AgentExecutionHandle } from '../../../src/executor/types.js';
import type { LLMAdapter } from '../../../src/llm/adapter.js';
import type { DrillEnvironment } from './drill-environment.js';
import type { StartedRun } from './drill-flow.js';
import { createHitlAgent, type HitlAgent } from '../worker/hitl-agent.js';
import { CRASH_APPLICATION_NAME } from '../worker/worker-config.js';

/**
 * DBOS executor id of the parent (workers use their own ids, so recovery never crosses over).
 *
 * @example
 * expect((await workflowRowOf(pool, workflowId))?.executorId).not.toBe(CONTROL_EXECUTOR_ID);
 */
export const CONTROL_EXECUTOR_ID = 'hitl-control-plane';

/**
 * DBOS application version of the parent (different from every worker's).
 *
 * @example
 * DBOS.setConfig({ name, systemDatabaseUrl, applicationVersion: CONTROL_APPLICATION_VERSION });
 */
export const CONTROL_APPLICATION_VERSION = 'hitl-control-plane-1';

/**
 * The parent's launched runtime.
 *
 * @example
 * const control = await launchControlPlane(env);
 * await control.executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId, result: 'Oslo' });
 */
export interface ControlPlane {
  executor: DBOSAgentExecutor;
  /** The drill agent, for handle lookups (`getHandle(agent, sessionId)`); never executed here. */
  agent: HitlAgent;
  /** The handle of a root run living in a worker (of `agent`, default the HITL agent); `run` must be the current run. */
  handleOf(run: StartedRun, agent?: AnyAgentConfig): Promise<AgentExecutionHandle<unknown>>;
  /** Shut DBOS down (call after the workers are gone, before the database is dropped). */
  shutdown(): Promise<void>;
}

const refusingLLM: LLMAdapter = {
  generateStep: () => Promise.reject(new Error('The control plane never runs an agent: a run started in the test process.')),
};

/**
 * Launch DBOS in the parent on the drill database, before any worker starts (the first launch creates the DBOS
 * system tables). `useDrill(prefix, { controlPlane: true })` does it in its beforeAll.
 *
 * @example
 * const control = await launchControlPlane(env);
 */
export async function launchControlPlane(env: DrillEnvironment): Promise<ControlPlane> {
  const agent = createHitlAgent(env.pool);
  const executor = new DBOSAgentExecutor({ stateStore: env.stateStore, streamManager: env.streamManager, usageStore: env.usageStore, llmAdapter: refusingLLM });
  DBOS.setConfig({
    name: CRASH_APPLICATION_NAME,
    systemDatabaseUrl: env.database.url,
    applicationVersion: CONTROL_APPLICATION_VERSION,
    executorID: CONTROL_EXECUTOR_ID,
    logLevel: 'error',
  });
  await DBOS.launch();
  const handleOf = async (run: StartedRun, of: AnyAgentConfig = agent): Promise<AgentExecutionHandle<unknown>> => {
    const handle = await executor.getHandle(of, run.sessionId);
    if (handle === null) throw new Error(`no handle for ${run.sessionId}`);
    expect(handle.runId).toBe(run.runId);
    return handle;
  };
  return { executor, agent, handleOf, shutdown: () => DBOS.shutdown() };
}
