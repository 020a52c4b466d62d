import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { isParkedRunStatus } from '../../index.js';
import type { SubmitToolResult } from '../../executor/submit-tool-result.js';
import type { AgentExecutionHandle } from '../../executor/types.js';
import { parseBody } from '../http-errors.js';
import type { AgentServerEnvironment, ServerContext } from '../server-context.js';
import { AgentServerHttpError, sessionNotFound } from '../server-errors.js';
import { abortRun, describeRun, interruptRun } from '../session-operations.js';
import { requireRoot, type ConsoleSessionAccess } from './console-access.js';
import type { ConsoleAction, ConsoleActionResponse } from './console-api.js';
import { consoleApproveSchema, consoleBranchSchema, consoleControlSchema, consoleDenySchema, consoleResumeSchema, consoleRetrySchema, consoleSubmitSchema } from './console-schemas.js';
import { openCallsOfTree } from './console-state.js';

/** How long an interrupt's answer waits for the run to stop (it does at its next step boundary, at once while it waits for a human). */
const INTERRUPT_SETTLE_MS = 2_000;
const SETTLE_POLL_MS = 50;

/**
 * What an action did: the executor's answer to a submission, the run it started, and which session's state to answer
 * (the acted-on session unless `reportOn` names another: a branch's new session).
 *
 * @example
 * const outcome: ConsoleActionOutcome = { startedRun: { sessionId: 's1', runId: 'run-2', streamId: 's1', startSequence: 40 } };
 */
export type ConsoleActionOutcome = Pick<ConsoleActionResponse, 'submission' | 'startedRun'> & { reportOn?: string };

/**
 * One action: validates its body (400 `INVALID_REQUEST`) and acts through the executor's public API.
 *
 * @example
 * const outcome = await CONSOLE_ACTIONS.retry(context, c, access);
 */
export type ConsoleActionHandler = (context: ServerContext, c: Context<AgentServerEnvironment>, access: ConsoleSessionAccess) => Promise<ConsoleActionOutcome>;

/**
 * The console's actions. Answers (`approve`, `deny`, `submit`) go to the root session (which routes a sub-agent's call
 * to its owner) and resume a parked run once the tree waits for no one; run control (`interrupt`, `abort`, `resume`,
 * `retry`, `branch`) takes a root session (409 `NOT_A_ROOT_SESSION`). Executor refusals keep their codes
 * (`NOT_RESUMABLE`, `INVALID_SUBMISSION`, …; 409 `NO_ACTIVE_RUN` when there is no run to interrupt or abort).
 *
 * @example
 * app.post('/api/sessions/:sessionId/approve', (c) => CONSOLE_ACTIONS.approve(context, c, access));
 */
export const CONSOLE_ACTIONS: Readonly<Record<ConsoleAction, ConsoleActionHandler>> = {
  approve: async (context, c, access) => {
    const body = await parseBody(c, consoleApproveSchema);
    const approvalId = await approvalIdOf(context, access, body.toolCallId);
    return answer(context, access, { kind: 'approval-response', sessionId: access.root.sessionId, toolCallId: body.toolCallId, approvalId, approved: true });
  },
  deny: async (context, c, access) => {
    const body = await parseBody(c, consoleDenySchema);
    const approvalId = await approvalIdOf(context, access, body.toolCallId);
    const reason = body.reason === undefined ? {} : { reason: body.reason };
    return answer(context, access, { kind: 'approval-response', sessionId: access.root.sessionId, toolCallId: body.toolCallId, approvalId, approved: false, ...reason });
  },
  submit: async (context, c, access) => {
    const body = await parseBody(c, consoleSubmitSchema);
    const outcome = body.error === undefined ? { result: body.result ?? null } : { error: body.error };
    return answer(context, access, { kind: 'client-tool-result', sessionId: access.root.sessionId, toolCallId: body.toolCallId, ...outcome });
  },
  interrupt: async (context, c, { state }) => {
    requireRoot(state);
    const body = await parseBody(c, consoleControlSchema);
    await interruptRun(context, state, body.reason);
    await settled(context, state.sessionId);
    return {};
  },
  abort: async (context, c, { state }) => {
    requireRoot(state);
    const body = await parseBody(c, consoleControlSchema);
    await abortRun(context, state, body.reason);
    return {};
  },
  resume: async (context, c, { state }) => {
    requireRoot(state);
    const body = await parseBody(c, consoleResumeSchema);
    const handle = await context.options.executor.resume(context.agentOf(state), state.sessionId, {
      ...(body.mode === undefined ? {} : { mode: body.mode }),
      ...(body.message === undefined ? {} : { message: body.message }),
      ...(body.checkpointId === undefined ? {} : { checkpointId: body.checkpointId }),
    });
    return started(context, handle);
  },
  retry: async (context, c, { state }) => {
    requireRoot(state);
    await parseBody(c, consoleRetrySchema);
    return started(context, await context.options.executor.retry(context.agentOf(state), state.sessionId));
  },
  branch: async (context, c, { state }) => {
    requireRoot(state);
    const body = await parseBody(c, consoleBranchSchema);
    const { executor, stateStore } = context.options;
    const agent = context.agentOf(state);
    if (body.checkpointId !== undefined && (await stateStore.getCheckpoint(state.sessionId, body.checkpointId)) === null) {
      throw new AgentServerHttpError(404, 'CHECKPOINT_NOT_FOUND', 'This session has no checkpoint with this id.');
    }
    const principal = c.get('principal');
    const sessionId = body.sessionId ?? `branch-${randomUUID()}`;
    const existing = await stateStore.loadState(sessionId);
    if (existing !== null && (existing.userId ?? null) !== (principal?.id ?? null)) throw sessionNotFound();
    if (existing !== null) throw new AgentServerHttpError(409, 'SESSION_ALREADY_EXISTS', 'A session with this id exists already: branch into a new id.');
    const branch = { fromSessionId: state.sessionId, ...(body.checkpointId === undefined ? {} : { checkpointId: body.checkpointId }) };
    const handle = await executor.execute(agent, body.message, { sessionId, branch, ...(principal === null ? {} : { userId: principal.id }) });
    await context.ownedSession(principal, sessionId); // a creation race lost to another principal
    return { ...(await started(context, handle)), reportOn: sessionId };
  },
};

/** The approval id the executor expects for an open approval (its own, else the call id). */
async function approvalIdOf(context: ServerContext, { state }: ConsoleSessionAccess, toolCallId: string): Promise<string> {
  const call = (await openCallsOfTree(context, state)).find((open) => open.toolCallId === toolCallId);
  return call?.approvalId ?? toolCallId;
}

/**
 * Submit an answer exactly once (the executor's `submitToolResult`), then continue: a warm run wakes by itself; a
 * parked root is resumed once nothing in its tree is left open (or was resumed by `autoResumeOnSubmit`).
 */
async function answer(context: ServerContext, { root }: ConsoleSessionAccess, submission: SubmitToolResult): Promise<ConsoleActionOutcome> {
  const { executor, stateStore } = context.options;
  const agent = context.agentOf(root); // before anything is written: this server must be able to continue the root
  const response = await executor.submitToolResult(submission);
  const answered = { submission: { status: response.status, ...(response.next === undefined ? {} : { next: response.next }) } };
  if (response.status !== 'accepted') return answered;
  if (response.next === 'resumed') {
    const handle = await executor.getHandle(agent, root.sessionId);
    return handle === null ? answered : { ...answered, ...(await started(context, handle)) };
  }
  const [after, run] = await Promise.all([stateStore.loadState(root.sessionId), stateStore.getCurrentRun(root.sessionId)]);
  if (after === null || !isParkedRunStatus(run?.status) || (await openCallsOfTree(context, after)).length > 0) return answered;
  return { ...answered, ...(await started(context, await executor.resume(agent, root.sessionId))) };
}

async function started(context: ServerContext, handle: AgentExecutionHandle): Promise<ConsoleActionOutcome> {
  return { startedRun: await describeRun(context, handle) };
}

/** Wait (bounded) until the session's current run is no longer running. */
async function settled(context: ServerContext, sessionId: string): Promise<void> {
  const deadline = Date.now() + INTERRUPT_SETTLE_MS;
  while (Date.now() < deadline) {
    const run = await context.options.stateStore.getCurrentRun(sessionId);
    if (run?.status !== 'running') return;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}
