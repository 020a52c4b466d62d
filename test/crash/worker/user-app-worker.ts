/**
 * Crash-drill worker for "inside your DBOS app": a user's own `@DBOS.workflow` calls `executor.execute()`,
 * awaits the agent run's result, then runs a step of its own. Run as `node --import tsx user-app-worker.ts`
 * with its {@link UserAppWorkerConfig} in `HELIX_CRASH_WORKER_CONFIG` and `DBOS__VMID` (executor id, the same
 * for both processes so the second recovers the first's workflows).
 * - `start`: start the user workflow for the session; its after-agent step prints an `agent_done` event and
 *   then blocks, so the parent SIGKILLs the process after the agent run completed and before the user
 *   workflow did.
 * - `recover`: start nothing; DBOS recovers the user workflow at launch, which replays its body (execute()
 *   included); print the recovered workflow's result as a `result` event, then exit.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { defineAgent } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { withIdleTransactionTimeout } from '../../../src/store/postgres/session-timeouts.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { WORKER_CONFIG_ENV, type UserAppWorkerConfig } from './worker-config.js';
import { emit } from './worker-lifecycle.js';

const config = JSON.parse(process.env[WORKER_CONFIG_ENV] ?? '{}') as UserAppWorkerConfig;
const databaseUrl = withIdleTransactionTimeout(config.databaseUrl);
const { mode, sessionId } = config;

const stateStore = new PostgresStateStore({ connectionString: databaseUrl });
const streamManager = new PostgresStreamManager({ connectionString: databaseUrl });
const agent = defineAgent({ name: 'welcome_agent', systemPrompt: 'Welcome the user.', maxSteps: 2 });
const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: new MockLLMAdapter(() => ({ type: 'text', text: 'Welcome aboard!' })) });

/** The user's application: its own durable workflow with an agent turn inside. */
export class Onboarding {
  @DBOS.workflow()
  static async onboard(id: string): Promise<{ runId: string; status: string; output: unknown }> {
    const handle = await executor.execute(agent, 'A new user signed up.', { sessionId: id });
    const result = await handle.result();
    await Onboarding.afterAgent();
    return { runId: handle.runId, status: result.status, output: result.output };
  }

  @DBOS.step()
  static async afterAgent(): Promise<void> {
    if (mode !== 'start') return;
    emit({ event: 'agent_done', sessionId });
    await new Promise(() => undefined); // the parent SIGKILLs us here
  }
}

async function main(): Promise<void> {
  await stateStore.migrate();
  DBOS.setConfig({ name: 'helix-user-app', systemDatabaseUrl: databaseUrl, applicationVersion: 'user-app-v1', logLevel: 'error' });
  await DBOS.launch();
  const workflowId = `onboard-${sessionId}`;
  if (mode === 'start') {
    await DBOS.startWorkflow(Onboarding, { workflowID: workflowId }).onboard(sessionId);
    return;
  }
  const result = await DBOS.retrieveWorkflow(workflowId).getResult();
  emit({ event: 'result', sessionId, result });
  await DBOS.shutdown();
  await executor.close();
  await Promise.all([stateStore.close(), streamManager.close()]);
}

void main();
