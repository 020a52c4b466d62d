import { DBOS } from '@dbos-inc/dbos-sdk';
import { firstTransactionalToolName, type AnyAgentConfig } from '../agent/index.js';
import { isAppDatabaseBound } from '../database/app-database.js';
import { appDatabaseRequired } from '../steps/transactional-tool.step.js';
import { DBOSStepContextError, InternalError } from '../errors/index.js';
import { assertAgentConfig } from './session-refusals.js';
import type { RunRecord } from '../types/session.js';
import type { UsageStore } from '../usage/usage-store.js';
import type { AgentWorkflowInput } from '../workflows/agent.workflow.js';
import type { DBOSAgentHandle } from './agent-handle.js';
import type { RunLauncher } from './run-launcher.js';
import { localHandle } from './run-workflow-start.js';
import type { PlacementOptions } from './run-placement.js';
import type { AgentExecutionHandle } from './types.js';

/** What a recorded entry-point step returns: the run to observe and the workflow start it deferred. */
interface RecordedRun {
  sessionId: string;
  run: Pick<RunRecord, 'runId' | 'workflowId' | 'startSequence'> | null;
  launch: AgentWorkflowInput | null;
}

/**
 * Where an executor entry point was called: outside DBOS, in a workflow body, or inside a step.
 *
 * @example
 * if (dbosCallContext() === 'step') throw new DBOSStepContextError('execute');
 */
export function dbosCallContext(): 'outside' | 'workflow' | 'step' {
  if (DBOS.isInStep() || DBOS.isInTransaction()) return 'step';
  return DBOS.isInWorkflow() ? 'workflow' : 'outside';
}

/**
 * Run an entry point that may start a run (execute, resume, retry) so that a user's workflow calling it is
 * replay-safe: outside DBOS it just runs; in a workflow body, every store read and write and every id is
 * decided once inside a recorded step (`helix.<operation>`) whose workflow start is deferred, and the body
 * then starts the run as a child workflow (deterministic id, so a recovered caller never starts a second).
 * Inside a step it refuses with `DBOSStepContextError`. Where its runs start (in place or on a queue) is decided
 * from `options` first, before anything is written (`RunLauncher.placing`).
 *
 * @throws DBOSStepContextError `DBOS_STEP_CONTEXT` when called inside a DBOS step.
 * @throws ConfigurationError `APP_DATABASE_NOT_CONFIGURED` for an agent with a transactional tool and no `appDatabase`.
 * @example
 * return startingRun(launcher, agent, 'execute', options, () => this.executeNow(agent, input, options));
 */
export async function startingRun(
  launcher: RunLauncher,
  agent: AnyAgentConfig,
  operation: string,
  options: PlacementOptions,
  start: () => Promise<AgentExecutionHandle<any>>,
): Promise<AgentExecutionHandle<any>> {
  assertAgentConfig(agent, operation);
  const transactional = isAppDatabaseBound() ? undefined : firstTransactionalToolName(agent);
  if (transactional !== undefined) throw appDatabaseRequired(transactional);
  const call = () => launcher.placing(agent, options, start);
  const context = dbosCallContext();
  if (context === 'outside') return call();
  if (context === 'step') throw new DBOSStepContextError(operation);
  const recorded = await DBOS.runStep(
    async (): Promise<RecordedRun> => {
      const { value: handle, launches } = await launcher.deferringLaunches(call);
      const startSequence = (handle as DBOSAgentHandle<unknown>).startSequence;
      return { sessionId: handle.sessionId, run: { runId: handle.runId, workflowId: handle.workflowId, startSequence }, launch: launches[0] ?? null };
    },
    { name: `helix.${operation}` },
  );
  return handleOfRecorded(launcher, agent, recorded);
}

/**
 * `getHandle` replay-safe in a workflow body: the current run is read once inside a recorded step.
 *
 * @throws DBOSStepContextError never (a handle may be taken inside a step; awaiting its result may not).
 * @example
 * return observingRun(launcher, agent, sessionId, () => stateStore.getCurrentRun(sessionId));
 */
export async function observingRun(
  launcher: RunLauncher,
  agent: AnyAgentConfig,
  sessionId: string,
  read: () => Promise<Pick<RunRecord, 'runId' | 'workflowId' | 'startSequence'> | null>,
  options: { usageStore?: UsageStore } = {},
): Promise<AgentExecutionHandle<any> | null> {
  assertAgentConfig(agent, 'getHandle');
  const pick = async (): Promise<RecordedRun> => {
    const run = await read();
    return {
      sessionId,
      run:
        run === null ? null : { runId: run.runId, ...(run.workflowId === undefined ? {} : { workflowId: run.workflowId }), startSequence: run.startSequence },
      launch: null,
    };
  };
  const recorded = dbosCallContext() === 'workflow' ? await DBOS.runStep(pick, { name: 'helix.getHandle' }) : await pick();
  if (recorded.run === null) return null;
  return launcher.handleFor(agent, sessionId, recorded.run, undefined, options.usageStore);
}

async function handleOfRecorded(launcher: RunLauncher, agent: AnyAgentConfig, recorded: RecordedRun): Promise<AgentExecutionHandle<any>> {
  if (recorded.run === null) throw new InternalError('A started or attached run has no run record (the launcher always writes one); report this.');
  const live = recorded.launch === null ? undefined : localHandle(recorded.launch, await launcher.launch(recorded.launch));
  return launcher.handleFor(agent, recorded.sessionId, recorded.run, live);
}
