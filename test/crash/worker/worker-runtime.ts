/**
 * The runtime of the MockLLM drill workers (persistent-worker.ts, companion-worker.ts): register the agent and the
 * workflows, construct the executor (options left unset keep the executor's defaults), launch DBOS under the crash
 * application name and print `launched`; and wait for a run to end.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { AnyAgentConfig } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import type { DBOSAgentExecutorConfig } from '../../../src/executor/types.js';
import { registerAgent } from '../../../src/steps/runtime-registry.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import type { RunRecord } from '../../../src/types/session.js';
import { registerDBOSAgentWorkflows } from '../../../src/workflows/agent.workflow.js';
import { CRASH_APPLICATION_NAME, CRASH_APPLICATION_VERSION } from './worker-config.js';
import { emit } from './worker-lifecycle.js';

const POLL_MS = 25;

/** What a drill worker passes to {@link launchDrillExecutor}: the executor's parts, its tuning (undefined: default) and DBOS's settings. */
export type DrillRuntimeOptions = Pick<DBOSAgentExecutorConfig, 'stateStore' | 'streamManager' | 'llmAdapter'> &
  Partial<Pick<DBOSAgentExecutorConfig, 'persistentWarmWindowMs' | 'hitlWarmWindowMs' | 'autoResumeOnSubmit'>> & {
    databaseUrl: string;
    /** DBOS applicationVersion. Default {@link CRASH_APPLICATION_VERSION}. */
    applicationVersion?: string | undefined;
  };

/** Register `agent`, construct the executor and launch DBOS on `databaseUrl`; prints `launched`. */
export async function launchDrillExecutor(agent: AnyAgentConfig, options: DrillRuntimeOptions): Promise<DBOSAgentExecutor> {
  const { databaseUrl, applicationVersion, stateStore, streamManager, llmAdapter, ...tuning } = options;
  registerAgent(agent);
  registerDBOSAgentWorkflows();
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, ...definedOnly(tuning) });
  DBOS.setConfig({ name: CRASH_APPLICATION_NAME, systemDatabaseUrl: databaseUrl, applicationVersion: applicationVersion ?? CRASH_APPLICATION_VERSION, logLevel: 'error' });
  await DBOS.launch();
  emit({ event: 'launched', at: Date.now() });
  return executor;
}

/** `value` without its undefined members (an executor option set to undefined would not keep its default). */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as Partial<T>;
}

/** The run record once the run is no longer `running` (polled). */
export async function runEnded(store: SessionStateStore, sessionId: string, runId: string): Promise<RunRecord> {
  for (;;) {
    const run = await store.getRun(sessionId, runId);
    if (run !== null && run.status !== 'running') return run;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
