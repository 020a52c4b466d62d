import { DBOS } from '@dbos-inc/dbos-sdk';
import type { AnyAgentConfig } from '../agent/index.js';
import { persistentTurnKey, type PersistentEndReason, type PersistentTurnMessage, type PersistentWorkflowInput } from '../orchestration/persistent-session.js';
import { CompanionStep } from '../steps/companion.step.js';
import { PersistentStep } from '../steps/persistent.step.js';
import { localPersistentWorkflows } from '../steps/local-persistent-sessions.js';
import { resolveRegisteredAgent } from '../steps/runtime-registry.js';
import type { RunScope } from '../steps/step-scope.js';
import type { AgentResult } from '../types/result.js';
import { isDBOSControlError } from './dbos-control-errors.js';
import { beginOf, runRecordedTurn } from './turn-runner.js';
import type { AgentWorkflowInput } from './turn-types.js';
import { persistentInboxReceiver } from './workflow-messages.js';
import { bindPersistentStarter } from './persistent-start.js';
import { enqueueParams } from '../orchestration/queue-placement.js';
import { refuseForeignWorkflowId } from './fork-guard.js';
import { refuseUnknownJournal } from '../journal/format.js';

/**
 * How a persistent session's workflow (one generation) ended.
 *
 * @example
 * const ended = await DBOS.retrieveWorkflow<PersistentSessionResult>(workflowId).getResult();
 * if (ended.endReason === 'idle_timeout') console.log('idle for too long');
 */
export interface PersistentSessionResult {
  sessionId: string;
  workflowId: string;
  /** `superseded`: the session had moved on to another workflow before this one started. */
  endReason: PersistentEndReason | 'superseded';
  /** `idle_timeout`, `suspended` (parked: idle, or a turn waiting for a human), `shutdown` (`executor.close()`), `aborted` or `failed`. */
  completionReason: 'idle_timeout' | 'suspended' | 'shutdown' | 'aborted' | 'failed';
  /** Turns this workflow ran. */
  turns: number;
}

/**
 * The persistent-mode session as a DBOS workflow: a receive loop over the session's inbox, one turn per
 * message with the same turn loop as standard runs (BeginRunStep → `runTurn` → FinishRunStep, a run record per
 * turn). After a turn it waits for the next message on durable time; idle past `idleWarmWindowMs` it parks
 * (ends: nothing in memory, nothing polling) and idle past `idleTimeoutMs` it ends with `idle_timeout` — either
 * way the next message restarts the session from the store. A turn that parks waiting for a human ends the
 * workflow too (resume() restarts it). Ending goes through the three-phase close of `PersistentStep`.
 */
export class PersistentWorkflows {
  @DBOS.workflow({ name: 'helix.runPersistentSession' })
  static async runPersistentSession(input: PersistentWorkflowInput): Promise<PersistentSessionResult> {
    refuseForeignWorkflowId(input.workflowId);
    refuseUnknownJournal(input.workflowId, input.journal);
    const agent = await resolveRegisteredAgent(input.agentType);
    const ended = (endReason: PersistentSessionResult['endReason'], turns: number): PersistentSessionResult => ({
      sessionId: input.sessionId,
      workflowId: input.workflowId,
      endReason,
      completionReason: endReason === 'parked' || endReason === 'superseded' ? 'suspended' : endReason,
      turns,
    });
    const queue = [...input.initialMessages];
    // A generation started with a message takes its inbox in that first turn's openTurn (one step less).
    let opening = queue.length > 0;
    if (!opening && (await PersistentStep.open(input)).superseded) return ended('superseded', 0);
    const close = { sessionId: input.sessionId, workflowId: input.workflowId };
    let idleTimeoutMs = input.idleTimeoutMs;
    // Durable time is read only when the loop waits; the time a turn ended is the first "now" of the wait after it.
    let lastActivity: number | undefined;
    let endedAt: number | undefined;
    let turns = 0;
    localPersistentWorkflows.add(input.workflowId);
    try {
      for (;;) {
        let message: PersistentTurnMessage | undefined = queue.shift();
        if (message === undefined) {
          const now = endedAt ?? (await DBOS.now());
          endedAt = undefined;
          lastActivity ??= now;
          const idleDeadline = lastActivity + idleTimeoutMs;
          const closeAt = Math.min(idleDeadline, lastActivity + input.idleWarmWindowMs);
          if (now < closeAt) {
            const received = await persistentInboxReceiver.receive(undefined, closeAt - now);
            if (received === null) continue;
            if (received.kind === 'shutdown') {
              await closeKeepingMessages(close, queue, 'shutdown');
              return ended('shutdown', turns);
            }
            message = received;
          } else {
            const reason: PersistentEndReason = now >= idleDeadline ? 'idle_timeout' : 'parked';
            const closed = await closeWhenEmpty(close, reason, reason === 'parked' ? idleDeadline : undefined, queue);
            if (closed !== undefined) return ended(closed, turns);
            continue;
          }
        }
        if (message.idleTimeoutMs !== undefined) idleTimeoutMs = message.idleTimeoutMs;
        const result = await runPersistentTurn(agent, input, message, opening);
        if (result === 'superseded') return ended('superseded', 0);
        opening = false;
        if (result !== undefined) turns += 1;
        if (result?.status === 'suspended_client_tool') {
          await closeKeepingMessages(close, queue, 'suspended');
          return ended('suspended', turns);
        }
        lastActivity = await DBOS.now();
        endedAt = lastActivity;
      }
    } catch (error) {
      // Cancelled (abort) or ownership lost: not this session's failure.
      if (isDBOSControlError(error)) throw error;
      await PersistentStep.endClose({ ...close, reason: 'failed', deferred: queue });
      return ended('failed', turns);
    } finally {
      localPersistentWorkflows.delete(input.workflowId);
    }
  }
}

/**
 * End the workflow unless a message arrived meanwhile: `closing` first, then one last look at the inbox (a
 * turn found there reopens the session and is queued; a shutdown request closes it with `shutdown`); else
 * `closed`. Returns the reason the workflow ends with, or undefined when it goes on.
 */
async function closeWhenEmpty(
  close: { sessionId: string; workflowId: string },
  reason: PersistentEndReason,
  idleDeadlineAt: number | undefined,
  queue: PersistentTurnMessage[],
): Promise<PersistentEndReason | undefined> {
  if (!(await PersistentStep.beginClose(close)).ok) return reason;
  const late = await persistentInboxReceiver.receive(undefined, 0);
  if (late?.kind === 'shutdown') {
    await drainAndClose(close, queue, 'shutdown');
    return 'shutdown';
  }
  if (late !== null) {
    await PersistentStep.reopen(close);
    queue.push(late);
    return undefined;
  }
  await PersistentStep.endClose({ ...close, reason, ...(idleDeadlineAt === undefined ? {} : { idleDeadlineAt }) });
  return reason;
}

/**
 * A turn parked waiting for a human (`suspended`), or `executor.close()` asked the session to end (`shutdown`):
 * close, keeping every queued message as `deferred` for the resume or restart.
 */
async function closeKeepingMessages(
  close: { sessionId: string; workflowId: string },
  queue: PersistentTurnMessage[],
  reason: 'suspended' | 'shutdown',
): Promise<void> {
  await PersistentStep.beginClose(close);
  await drainAndClose(close, queue, reason);
}

async function drainAndClose(
  close: { sessionId: string; workflowId: string },
  queue: PersistentTurnMessage[],
  reason: 'suspended' | 'shutdown',
): Promise<void> {
  const deferred = [...queue];
  for (;;) {
    const late = await persistentInboxReceiver.receive(undefined, 0);
    if (late === null) break;
    if (late.kind === 'turn') deferred.push(late);
  }
  await PersistentStep.endClose({ ...close, reason, deferred });
}

/**
 * One message → one recorded turn (undefined when its turn ran before: a restarted generation's initial message).
 * `opensGeneration`: the generation's first step, which also takes the inbox ('superseded': the session moved on).
 */
async function runPersistentTurn(
  agent: AnyAgentConfig,
  input: PersistentWorkflowInput,
  message: PersistentTurnMessage,
  opensGeneration: boolean,
): Promise<AgentResult | 'superseded' | undefined> {
  const scope: RunScope = {
    sessionId: input.sessionId,
    runId: message.runId,
    agentType: input.agentType,
    streamId: input.streamId,
    workflowId: input.workflowId,
    turnKey: persistentTurnKey(message.runId),
    // A companion turn a tool call started sits under that call's `execute_tool` span, in the caller's trace.
    ...(message.trace === undefined ? {} : { trace: message.trace }),
  };
  const opened = await PersistentStep.openTurn({
    ...scope,
    message: {
      runId: message.runId,
      ...(message.resume === undefined ? {} : { resume: message.resume }),
      ...(message.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: message.idleTimeoutMs }),
    },
    begin: beginOf(message),
    ...(opensGeneration ? { opensGeneration: true } : {}),
  });
  if (opened.superseded === true) return 'superseded';
  if (opened.alreadyRan === true) return undefined;
  const companion = input.parent === undefined ? undefined : { childSessionId: input.sessionId, parent: input.parent, runId: message.runId };
  if (companion !== undefined) await CompanionStep.reportTurn({ ...companion, phase: 'started' });
  const turnInput: AgentWorkflowInput = {
    ...scope,
    startSequence: opened.startSequence,
    rootSessionId: input.rootSessionId,
    warmWindowMs: input.hitlWarmWindowMs,
    ...(message.userMessage === undefined ? {} : { userMessage: message.userMessage }),
    ...(message.initialState === undefined ? {} : { initialState: message.initialState }),
    ...(message.resume === undefined ? {} : { resume: message.resume }),
  };
  // openTurn began the run (input appended, hooks fired): no BeginRunStep.
  const result = await runRecordedTurn(agent, scope, turnInput, { begun: true });
  // A companion's turn ended: the parent's ref gets its outcome and a waiting parent run is woken.
  if (companion !== undefined) await CompanionStep.reportTurn({ ...companion, phase: 'ended' });
  return result;
}

bindPersistentStarter(async (input: PersistentWorkflowInput) => {
  // DBOS needs the registered (decorated) static method itself, not a wrapper.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  await DBOS.startWorkflow(PersistentWorkflows.runPersistentSession, { workflowID: input.workflowId, ...enqueueParams(input.queue) })(input);
});

export { startPersistentWorkflow } from './persistent-start.js';
