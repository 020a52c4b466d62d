import { DBOS } from '@dbos-inc/dbos-sdk';
import { AgentAlreadyRunningError, DBOSPersistentSessionTerminatedError, SessionNotFoundError, StaleStateError } from '../errors/index.js';
import {
  readPersistentMarker,
  withPersistentMarker,
  type PersistentMarker,
  type PersistentTurnMessage,
  type PersistentWorkflowInput,
} from '../orchestration/persistent-session.js';
import type { SessionStateStore } from '../store/state-store.js';
import { updateSessionIfExists } from '../store/update-session-with-retry.js';
import type { SessionState, SessionStateWrite } from '../types/session.js';

/** Rounds of the routing loop before giving up (each round is one observed change by another writer). */
const MAX_ROUTE_ROUNDS = 8;
/** Restarts lost to concurrent writers before giving up (the documented "one internal retry"). */
const MAX_LOST_RESTARTS = 2;
/** Poll interval while the session's workflow is in its (milliseconds-long) closing phase. */
const CLOSING_POLL_MS = 10;
/** A workflow `closing` for longer than this without finishing was stopped mid-close (a crash): give up. */
const CLOSING_WAIT_MS = 20_000;

/**
 * How a routed message reaches its session.
 *
 * @example
 * const { workflowId, restarted } = await routePersistentMessage(stateStore, 's1', message, { restartInput, transport });
 */
export interface RouteResult {
  /** The workflow that owns the message now. */
  workflowId: string;
  /** True when this call restarted the session (a new generation carries the message as its first turn). */
  restarted: boolean;
  /**
   * Set only with a deferring transport (`start` returned false): the workflow the caller must start (its workflow
   * body, as a child workflow with this deterministic id), and — when `sendAfterStart` — then send the message to.
   */
  start?: PersistentWorkflowInput;
  sendAfterStart?: boolean;
}

/**
 * How the router reaches DBOS: send into an inbox, start a generation. A workflow step cannot start workflows, so
 * its `start` returns false (deferred) and the router hands the start back to the caller in {@link RouteResult}.
 *
 * @example
 * const transport: RouteTransport = { send: (id, message) => persistentInbox.send(id, undefined, message, message.runId), start: async (input) => { await startPersistentWorkflow(input); return true; } };
 */
export interface RouteTransport {
  /** Send `message` into the inbox of `workflowId` (idempotency key: the message's runId). */
  send(workflowId: string, message: PersistentTurnMessage): Promise<void>;
  /** Start the generation now (true), or leave it to the caller (false). */
  start(input: PersistentWorkflowInput): Promise<boolean>;
}

/** Options of {@link routePersistentMessage}. */
export interface RouteOptions {
  /**
   * The start input of the next generation when the session's workflow ended. `carried` are the messages to run
   * first, in order (messages deferred by a park, and this one).
   */
  restartInput: (state: SessionState, marker: PersistentMarker | undefined, carried: PersistentTurnMessage[]) => PersistentWorkflowInput;
  /** A resume of a turn parked for a human: may restart a `suspended` session (deferred messages run after it). */
  resumesParkedTurn?: boolean;
  transport: RouteTransport;
  /**
   * The session as the caller just read it: the first round uses it instead of reading again (its version guards
   * the restart CAS; a stale copy only costs a round).
   */
  knownState?: SessionState;
}

/**
 * Deliver one turn message to a persistent session, exactly once:
 * - `live` workflow → `DBOS.send` into its inbox (idempotency key: the message's runId; a workflow whose start was
 *   lost is started from the marker's `start` first), then confirm: still `live`, or — if it began to close —
 *   the message was taken (its run exists, or it was deferred). An untaken message goes round again.
 * - `closing` → wait for the close to finish (milliseconds).
 * - `closed` (parked, idle timeout, aborted…) → restart: a version-checked CAS moves the marker to the next
 *   generation (one winner among concurrent senders) whose start input carries the message; losers re-read and
 *   send to the winner's workflow.
 *
 * @throws AgentAlreadyRunningError `AGENT_ALREADY_RUNNING` when the session's turn is parked waiting for a human.
 * @throws DBOSPersistentSessionTerminatedError `DBOS_PERSISTENT_SESSION_TERMINATED` when restarts keep losing races.
 * @example
 * await routePersistentMessage(stateStore, sessionId, { kind: 'turn', runId, userMessage }, { restartInput, transport });
 */
export async function routePersistentMessage(
  stateStore: SessionStateStore,
  sessionId: string,
  message: PersistentTurnMessage,
  options: RouteOptions,
): Promise<RouteResult> {
  let lostRestarts = 0;
  for (let round = 1; round <= MAX_ROUTE_ROUNDS; round += 1) {
    const state = round === 1 && options.knownState !== undefined ? options.knownState : await stateStore.loadState(sessionId);
    if (state === null) throw new SessionNotFoundError(sessionId);
    const marker = readPersistentMarker(state.metadata);
    if (marker?.phase === 'closing') {
      await waitWhileClosing(stateStore, sessionId, marker.workflowId);
      continue;
    }
    if (marker === undefined || marker.phase === 'closed') {
      if (marker?.endReason === 'suspended' && options.resumesParkedTurn !== true) throw new AgentAlreadyRunningError(sessionId, 'suspended_client_tool');
      const deferred = marker?.deferred ?? [];
      const carried = options.resumesParkedTurn === true ? [message, ...deferred] : [...deferred, message];
      const start = options.restartInput(state, marker, carried);
      const next: PersistentMarker = { workflowId: start.workflowId, phase: 'live', generation: start.generation, start };
      try {
        await stateStore.saveState(sessionId, { metadata: withPersistentMarker(state.metadata, next) }, { expectedVersion: state.version });
      } catch (error) {
        if (!StaleStateError.isInstance(error)) throw error;
        // A lost CAS on the caller's copy is not a lost race (the copy may just be old).
        if (round === 1 && options.knownState !== undefined) continue;
        lostRestarts += 1;
        if (lostRestarts > MAX_LOST_RESTARTS) break;
        continue;
      }
      if (!(await options.transport.start(start))) return { workflowId: start.workflowId, restarted: true, start };
      return { workflowId: start.workflowId, restarted: true };
    }
    const sent = await sendToInbox(options.transport, marker, message);
    if (sent === 'deferred' && marker.start !== undefined)
      return { workflowId: marker.workflowId, restarted: false, start: marker.start, sendAfterStart: true };
    if (sent !== 'sent') continue;
    if (await taken(stateStore, sessionId, marker.workflowId, message.runId)) return { workflowId: marker.workflowId, restarted: false };
  }
  throw new DBOSPersistentSessionTerminatedError(sessionId);
}

/** Send into the live workflow's inbox; a workflow DBOS does not know (lost start, reset) is started from the marker first. */
async function sendToInbox(transport: RouteTransport, marker: PersistentMarker, message: PersistentTurnMessage): Promise<'sent' | 'started' | 'deferred'> {
  try {
    await transport.send(marker.workflowId, message);
    return 'sent';
  } catch (error) {
    if (!isNonExistentWorkflow(error) || marker.start === undefined) throw error;
    return (await transport.start(marker.start)) ? 'started' : 'deferred';
  }
}

/**
 * After a send to `workflowId`: true when the message will run — the workflow is still `live`, or it closed
 * after taking the message (its run exists, it was deferred or carried into the next generation).
 */
async function taken(stateStore: SessionStateStore, sessionId: string, workflowId: string, runId: string): Promise<boolean> {
  for (;;) {
    const marker = readPersistentMarker((await stateStore.loadState(sessionId))?.metadata);
    if (marker?.workflowId === workflowId && marker.phase === 'live') {
      // Live on record: true unless DBOS has the workflow ended without closing (cancelled from outside, or failed).
      if (await isRunning(workflowId)) return true;
      await forceClosed(stateStore, sessionId, workflowId, 'live');
      continue;
    }
    if (marker?.workflowId === workflowId && marker.phase === 'closing') {
      await waitWhileClosing(stateStore, sessionId, workflowId);
      continue;
    }
    if ((await stateStore.getRun(sessionId, runId)) !== null) return true;
    return [...(marker?.deferred ?? []), ...(marker?.start?.initialMessages ?? [])].some((queued) => queued.runId === runId);
  }
}

async function waitWhileClosing(stateStore: SessionStateStore, sessionId: string, workflowId: string): Promise<void> {
  const deadline = Date.now() + CLOSING_WAIT_MS;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, CLOSING_POLL_MS));
    const marker = readPersistentMarker((await stateStore.loadState(sessionId))?.metadata);
    if (marker?.workflowId !== workflowId || marker.phase !== 'closing') return;
    if (Date.now() > deadline) {
      // Stopped mid-close: if DBOS has it ended, nobody will finish the close — finish it here.
      const status = await DBOS.getWorkflowStatus(workflowId);
      if (status !== null && status.status === 'PENDING') throw new DBOSPersistentSessionTerminatedError(sessionId);
      await forceClosed(stateStore, sessionId, workflowId, 'closing');
      return;
    }
  }
}

/** Record a workflow that DBOS has ended without closing as `closed` (reason `failed`), so the next message restarts. */
async function forceClosed(stateStore: SessionStateStore, sessionId: string, workflowId: string, from: 'live' | 'closing'): Promise<void> {
  const close = (state: SessionState): { write: SessionStateWrite | null; value: undefined } => {
    const marker = readPersistentMarker(state.metadata);
    if (marker?.workflowId !== workflowId || marker.phase !== from) return { write: null, value: undefined };
    return { write: { metadata: withPersistentMarker(state.metadata, { ...marker, phase: 'closed', endReason: 'failed' }) }, value: undefined };
  };
  await updateSessionIfExists(stateStore, sessionId, close, { maxAttempts: Infinity });
}

async function isRunning(workflowId: string): Promise<boolean> {
  const status = await DBOS.getWorkflowStatus(workflowId);
  return status !== null && (status.status === 'PENDING' || status.status === 'ENQUEUED');
}

/**
 * True for DBOS's "no such workflow" error (matched by name too: DBOS errors cross module copies and replays).
 *
 * @example
 * if (isNonExistentWorkflow(error)) await startPersistentWorkflow(marker.start);
 */
export function isNonExistentWorkflow(error: unknown): boolean {
  return error instanceof Error && (error.name === 'DBOSNonExistentWorkflowError' || error.constructor.name === 'DBOSNonExistentWorkflowError');
}
