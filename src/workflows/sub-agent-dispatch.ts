import { DBOS, Error as DBOSErrors, type WorkflowHandle } from '@dbos-inc/dbos-sdk';
import type { PlannedSubAgentCall } from '../orchestration/index.js';
import { childOutcomeOf, CHILD_TERMINATED_MESSAGE, type ChildOutcome } from '../orchestration/sub-agents.js';
import type { AgentWorkflowInput } from '../orchestration/workflow-input.js';
import { SubAgentStep, type ChildPreparation } from '../steps/sub-agent.step.js';
import type { AgentResult } from '../types/result.js';
import type { TurnContext } from './turn-types.js';
import { childDoneReceiver } from './workflow-messages.js';
import { HelixError } from '../errors/index.js';

/** Starts the agent workflow as a child (bound by agent.workflow.ts, which owns the workflow function). */
type ChildStarter = (input: AgentWorkflowInput) => Promise<WorkflowHandle<AgentResult>>;

let startChild: ChildStarter | undefined;

/** @internal Bind how child runs start (called once when the agent workflow module loads). */
export function bindChildStarter(starter: ChildStarter): void {
  startChild = starter;
}

/** How long one wait for a child's completion message lasts before the parent checks the child's status. */
const CHILD_WAIT_MS = 10 * 60_000;
/** Poll interval for a child's result once its completion message arrived (it returns right after sending). */
const RESULT_AFTER_WAKE_POLL_MS = 10;

/** A sub-agent call and what became of its child. */
export interface ChildCallOutcome {
  call: PlannedSubAgentCall;
  outcome: ChildOutcome;
}

/**
 * Run sub-agent children as DBOS child workflows, all at once, and collect their outcomes in call order.
 * Deterministic under replay: every durable operation is issued in a fixed order (all preparation steps, then
 * all starts, then the waits one child after another), and child ids derive from the parent's run and call.
 * `mode: 'dispatch'` starts fresh children; `'continue'` applies the cascade to children a suspended step waited for.
 * The wait is a DBOS message from the child (no polling); its result then comes from DBOS.
 */
export async function runChildren(
  context: TurnContext,
  step: number,
  calls: PlannedSubAgentCall[],
  mode: 'dispatch' | 'continue',
): Promise<ChildCallOutcome[]> {
  if (calls.length === 0) return [];
  const { scope, input } = context;
  const prepared = await Promise.all(
    calls.map((call) => {
      const stepInput = {
        ...scope,
        step,
        call,
        rootSessionId: input.rootSessionId,
        warmWindowMs: input.warmWindowMs,
        ...(input.queue === undefined ? {} : { queue: input.queue }),
      };
      return mode === 'dispatch' ? SubAgentStep.dispatch(stepInput) : SubAgentStep.prepareContinue(stepInput);
    }),
  );
  const starter = startChild;
  if (starter === undefined) {
    const message = 'Sub-agent runs cannot start: registerDBOSAgentWorkflows() was not called; construct the DBOSAgentExecutor before DBOS.launch().';
    throw new HelixError('RUNTIME_NOT_READY', message);
  }
  const started = prepared.map((preparation) => (preparation.kind === 'start' ? starter(preparation.child) : undefined));
  const outcomes: ChildCallOutcome[] = [];
  for (const [index, call] of calls.entries()) {
    outcomes.push({ call, outcome: await outcomeOf(call, prepared[index], started[index]) });
  }
  return outcomes;
}

async function outcomeOf(
  call: PlannedSubAgentCall,
  preparation: ChildPreparation | undefined,
  start: Promise<WorkflowHandle<AgentResult>> | undefined,
): Promise<ChildOutcome> {
  if (preparation === undefined || preparation.kind === 'failed') return { kind: 'error', error: preparation?.error ?? 'The sub-agent could not be started.' };
  if (preparation.kind === 'drained') return preparation.outcome;
  const workflowId = preparation.kind === 'start' ? (await start)?.workflowID : preparation.workflowId;
  if (workflowId === undefined) return { kind: 'error', error: 'The sub-agent could not be started.' };
  try {
    for (;;) {
      const woken = await childDoneReceiver.receive(call.toolCallId, CHILD_WAIT_MS);
      // Without a message (one lost to a crash, or a child of an earlier parent run), check the result itself.
      // The message precedes the child's return by a moment: a short poll then finds its result.
      const result = await DBOS.getResult<AgentResult>(workflowId, woken === null ? { timeoutSeconds: 1 } : { pollingIntervalMs: RESULT_AFTER_WAKE_POLL_MS });
      if (result !== null) return childOutcomeOf(result);
    }
  } catch (error) {
    if (error instanceof DBOSErrors.DBOSAwaitedWorkflowCancelledError || (error as { name?: unknown }).name === 'DBOSAwaitedWorkflowCancelledError')
      return { kind: 'error', error: CHILD_TERMINATED_MESSAGE };
    throw error;
  }
}
