import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { DBOSStepContextError } from '../../../src/errors/index.js';
import type { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from './executor-test-kit.js';

const agent = defineAgent({ name: 'in_app_agent', systemPrompt: 'x', maxSteps: 2 });
const llm = scriptedLLM();
let runtime: TestRuntime;
let executor: DBOSAgentExecutor;

/** A user's DBOS application calling the executor from its own workflow and step. */
class UserApp {
  @DBOS.workflow()
  static async greet(sessionId: string): Promise<{ runId: string; status: string; again: string | undefined }> {
    const handle = await executor.execute(agent, 'hi', { sessionId });
    const result = await handle.result();
    const again = await executor.getHandle(agent, sessionId);
    return { runId: handle.runId, status: result.status, again: again?.runId };
  }

  @DBOS.workflow()
  static async callsAStep(sessionId: string): Promise<string> {
    return UserApp.greetFromStep(sessionId);
  }

  @DBOS.step()
  static async greetFromStep(sessionId: string): Promise<string> {
    try {
      await executor.execute(agent, 'hi', { sessionId });
      return 'no error';
    } catch (error) {
      return DBOSStepContextError.isInstance(error) ? `typed: ${error.message}` : `raw: ${String(error)}`;
    }
  }
}

beforeAll(async () => {
  runtime = await startTestRuntime('inside_dbos_app', llm.adapter);
  executor = runtime.executor;
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('inside your DBOS app', () => {
  it('from a workflow: the agent run is a child workflow; re-running the workflow id starts nothing new', async () => {
    llm.use(() => ({ type: 'text', text: 'hello' }));
    const first = await (await DBOS.startWorkflow(UserApp, { workflowID: 'greet-1' }).greet('in-app-1')).getResult();
    expect(first).toMatchObject({ status: 'completed', again: first.runId });
    const status = await DBOS.getWorkflowStatus(`in_app_agent__in-app-1__${first.runId}`);
    expect(status?.parentWorkflowID).toBe('greet-1');
    const steps = (await DBOS.listWorkflowSteps('greet-1')) ?? [];
    expect(steps.map((step) => step.name)).toEqual(expect.arrayContaining(['helix.execute', 'helix.getHandle']));
    const again = await (await DBOS.startWorkflow(UserApp, { workflowID: 'greet-1' }).greet('in-app-1')).getResult();
    expect(again).toEqual(first);
    expect((await runtime.stateStore.listRuns('in-app-1')).runs).toHaveLength(1);
  });

  it('from a step: a typed error that says what to do, nothing written', async () => {
    const answer = await (await DBOS.startWorkflow(UserApp).callsAStep('in-app-2')).getResult();
    expect(answer).toMatch(/^typed: execute\(\) cannot run inside a DBOS step/);
    expect(answer).toContain('@DBOS.workflow');
    expect(await runtime.stateStore.loadState('in-app-2')).toBeNull();
  });
});
