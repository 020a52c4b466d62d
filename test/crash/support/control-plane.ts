/**
 * The parent test process as the "API server" of the human-in-the-loop drills: it launches DBOS under its own
 * executor id and application version (so it never recovers — or runs — a worker's workflow) and answers,
 * interrupts and aborts runs that live in worker processes, through the public executor API. It never runs
 * an agent: its LLM adapter refuses every call.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import type { LLMAdapter } from '../../../src/llm/adapter.js';
import type { DrillEnvironment } from '../support/drill-environment.js';
import { createHitlAgent, type HitlAgent } from '../worker/hitl-agent.js';
import { CRASH_APPLICATION_NAME } from '../worker/worker-config.js';

/**
 * DBOS executor id of the parent (workers use their own ids, so recovery never crosses over).
 *
 * @example
 * expect((await hitlWorkflowRowOf(pool, workflowId))?.executorId).not.toBe(CONTROL_EXECUTOR_ID);
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
  /** Shut DBOS down (call after the workers are gone, before the database is dropped). */
  shutdown(): Promise<void>;
}

const refusingLLM: LLMAdapter = {
  generateStep: () => Promise.reject(new Error('The control plane never runs an agent: a run started in the test process.')),
};

/**
 * Launch DBOS in the parent on the drill database. Call in beforeAll, before any worker starts (the first
 * launch creates the DBOS system tables).
 *
 * @example
 * beforeAll(async () => { env = await setUpDrillEnvironment('hitl_kill'); control = await launchControlPlane(env); });
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
  return { executor, agent, shutdown: () => DBOS.shutdown() };
}
