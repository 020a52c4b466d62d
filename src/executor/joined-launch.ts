import type { WorkflowHandle } from '@dbos-inc/dbos-sdk';
import { InternalError } from '../errors/index.js';
import type { HookManager } from '../hooks/index.js';
import type { JoinedWorkflowStart, WorkflowStartJoin } from '../journal/journal-types.js';
import { workflowStartJoin } from '../journal/journal.js';
import { startRunReadsAhead } from '../steps/first-step-reads.js';
import { atRunBoundary } from '../steps/run-boundary-probe.js';
import type { AgentWorkflowInput } from '../workflows/agent.workflow.js';
import { dbosCallContext } from './replay-safe.js';
import { startRunWorkflow } from './run-workflow-start.js';
import { startWritesJoined, withStartWrites, type StartWriter, type StartWriteStores, type WorkflowStartInit } from './start-writes.js';
import type { AgentExecutionHandle } from './types.js';

/**
 * A run's launch as `RunLauncher` prepares it (its hooks registered and its signals watched before its workflow
 * starts): what its reads ahead need, what to undo when it does not start, and its handle once started.
 *
 * @example
 * const handle = launch.handle(await startRunWorkflow(input));
 */
export interface Launch {
  ahead(started: Promise<unknown>): { companions: number; hooks: Pick<HookManager, 'hasHooks'>; started: Promise<unknown> };
  /** Its workflow failed to start: stop watching, drop the reads started ahead. */
  failed(readsAhead: boolean): void;
  /** Its writes were refused: nothing started, nothing of it is kept. */
  refused(): void;
  handle(live: WorkflowHandle<unknown> | undefined): AgentExecutionHandle<any>;
}

/**
 * The journal's {@link WorkflowStartJoin} when the start of `input` can join it: a root run started in place, from
 * outside any workflow, whose start writes commit together on DBOS's system database. `undefined` otherwise.
 *
 * @example
 * const join = await joinedStart(config, planned.input);
 */
export async function joinedStart(stores: StartWriteStores, input: AgentWorkflowInput): Promise<WorkflowStartJoin | undefined> {
  if (input.queue !== undefined || input.parent !== undefined || dbosCallContext() !== 'outside') return undefined;
  const join = workflowStartJoin();
  if (join === undefined || !(await startWritesJoined(stores))) return undefined;
  return (await join.joins(stores.stateStore.stepRecords)) ? join : undefined;
}

/**
 * Start the workflow of `planned` with DBOS's record of its start in the transaction of its start writes (`write`):
 * both commit, or neither. Once they did, the first step's reads start ahead as after a separate start. `undefined`
 * when `write` was refused (resolved `undefined`): no workflow started.
 *
 * @throws InternalError when `write` records another input than the one DBOS was given (a turn stored otherwise).
 * @example
 * const handle = await launchJoined(join, config, planned.input, (writer) => launcher.recordRun(writer, planned), launch);
 */
export async function launchJoined(
  join: WorkflowStartJoin,
  stores: StartWriteStores,
  planned: AgentWorkflowInput,
  write: (writer: StartWriter) => Promise<AgentWorkflowInput | undefined>,
  launch: Launch,
): Promise<AgentExecutionHandle<any> | undefined> {
  // DBOS records the input before the writes run: joined, they commit together, so a fresh turn is stored with them.
  const input = turnStoredTogether(planned);
  let readsAhead = false;
  let committed = false;
  // DBOS's start returned: the call made ahead goes out then (as after a separate start), never if it failed.
  let settleStarted!: (failed: boolean) => void;
  const started = new Promise<void>((resolve, reject) => {
    settleStarted = (failed) => (failed ? reject(new InternalError('The run\'s workflow did not start.')) : resolve());
  });
  started.catch(() => undefined);
  const recordWrites = async (init: WorkflowStartInit): Promise<AgentWorkflowInput | undefined> => {
    const recorded = await withStartWrites(stores, async (writer) => {
      const written = await write(writer);
      if (written !== undefined && written.turnStored !== input.turnStored) {
        throw new InternalError('A joined start recorded another input than the one its workflow was started with.');
      }
      return written;
    }, init);
    committed = recorded !== undefined;
    if (!committed) return undefined;
    await atRunBoundary('start_recorded', input.sessionId);
    // Before DBOS runs the workflow function (it awaits this): its begin finds them started.
    readsAhead = startRunReadsAhead(stores, input, launch.ahead(started));
    return recorded;
  };
  let outcome: JoinedWorkflowStart<WorkflowHandle<unknown>, AgentWorkflowInput>;
  try {
    outcome = await join.start(input.workflowId, () => startRunWorkflow(input), recordWrites);
  } catch (error) {
    settleStarted(true);
    // Not committed: nothing of the run was written and its workflow did not start.
    if (committed) launch.failed(readsAhead);
    else launch.refused();
    throw error;
  }
  if (outcome.handle === undefined) {
    settleStarted(true);
    launch.refused();
    return undefined;
  }
  settleStarted(false);
  return launch.handle(outcome.handle);
}

/**
 * `input` as a start whose writes commit together records it (`RunLauncher.recordRun`): a fresh turn (a user message,
 * no resume, not a sub-agent's) is stored with the run (`turnStored`), and its begin writes nothing.
 *
 * @example
 * const input = writer.together ? turnStoredTogether(planned.input) : planned.input;
 */
export function turnStoredTogether(input: AgentWorkflowInput): AgentWorkflowInput {
  const stored = input.userMessage !== undefined && input.resume === undefined && input.parent === undefined;
  return stored ? { ...input, turnStored: true as const } : input;
}
