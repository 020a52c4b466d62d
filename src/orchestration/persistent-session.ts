import type { QueuePlacement } from './queue-placement.js';
import type { JournalStamp } from '../types/journal.js';
import type { UserMessage } from '../types/message.js';
import type { AgentWorkflowInput } from './workflow-input.js';

/**
 * One message of a persistent session's inbox: a turn to run (a user message, a resume, or both). `runId` is
 * chosen by the sender: the turn's run record gets it, the sender's handle waits for it, and the inbox send
 * uses it as idempotency key, so a message is delivered and run at most once.
 *
 * @example
 * const message: PersistentTurnMessage = { kind: 'turn', runId: 'run-1', userMessage: { id: 'run-1:0:0', role: 'user', content: 'Hi' } };
 */
export interface PersistentTurnMessage {
  kind: 'turn';
  runId: string;
  userMessage?: UserMessage;
  /** Custom state to write before the turn (an `execute()` input with `state`). */
  initialState?: Record<string, unknown>;
  /** Set by resume()/retry(): the turn continues an earlier run (settling its parked step, if any). */
  resume?: AgentWorkflowInput['resume'];
  /** Idle timeout from this turn on (an `execute()` override). */
  idleTimeoutMs?: number;
  /** A companion turn a tool call started: the caller's trace and the call's `execute_tool` span, the turn's parent. */
  trace?: { traceId: string; parentSpanId: string };
}

/**
 * The DBOS topic of a persistent session's inbox.
 *
 * @example
 * await DBOS.send(workflowId, message, PERSISTENT_INBOX_TOPIC, message.runId);
 */
export const PERSISTENT_INBOX_TOPIC = 'persistent-inbox';

/**
 * `executor.close()` asks a warm session's workflow to end: after the turn in progress (if any) it closes with end
 * reason `shutdown`, keeping messages that arrive meanwhile for the restart.
 *
 * @example
 * const message: PersistentShutdownMessage = { kind: 'shutdown' };
 */
export interface PersistentShutdownMessage {
  kind: 'shutdown';
}

/** Anything a persistent session's inbox carries. */
export type PersistentInboxMessage = PersistentTurnMessage | PersistentShutdownMessage;

/**
 * Arguments of the persistent-session workflow (one workflow per generation of a session: the first, then one
 * per restart after the session parked or ended).
 *
 * @example
 * const input: PersistentWorkflowInput = { sessionId: 's1', agentType: 'chat', streamId: 's1', workflowId: 'chat__s1__persistent', generation: 0, rootSessionId: 's1', hitlWarmWindowMs: 60_000, idleWarmWindowMs: 60_000, idleTimeoutMs: 86_400_000, initialMessages: [] };
 */
export interface PersistentWorkflowInput {
  sessionId: string;
  agentType: string;
  streamId: string;
  /** This generation's DBOS workflow id (also `metadata.dbosWorkflowId` while it is live). */
  workflowId: string;
  generation: number;
  rootSessionId: string;
  /** How long a human-in-the-loop wait inside a turn stays warm before the turn parks. */
  hitlWarmWindowMs: number;
  /** How long the workflow waits for a message after a turn before it parks (ends; the next message restarts it). */
  idleWarmWindowMs: number;
  /** With no message for this long the session ends with completion reason `idle_timeout`. */
  idleTimeoutMs: number;
  /** Turns to run first, in order (the message that started this generation, messages deferred by a park). */
  initialMessages: PersistentTurnMessage[];
  /** The step-journal format the generation is recorded in (absent: a release before format 1; refused). */
  journal?: JournalStamp;
  /** Set for a companion (persistent sub-agent): each turn reports to this parent's ref and wakes its waiting run. */
  parent?: CompanionParentLink;
  /** The queue every generation is enqueued on (absent: it starts where it is started). */
  queue?: QueuePlacement;
}

/**
 * The parent of a companion session: whose `SubSessionRef` (by the child's session id) a turn updates.
 *
 * @example
 * const parent: CompanionParentLink = { sessionId: 's1', name: 'researcher-1' };
 */
export interface CompanionParentLink {
  sessionId: string;
  /** The companion's name in the parent. */
  name: string;
}

/**
 * Phase of a persistent session's current workflow: `live` (waiting or running a turn: messages go to its
 * inbox), `closing` (it is ending: wait a moment), `closed` (ended: the next message restarts the session).
 *
 * @example
 * if (marker.phase === 'closed') console.log(marker.endReason);
 */
export type PersistentPhase = 'live' | 'closing' | 'closed';

/**
 * Why a persistent session's workflow ended: `parked` (idle past the warm window; nothing runs, the next
 * message restarts it), `idle_timeout`, `suspended` (a turn parked waiting for a human: resume()
 * continues it), `shutdown` (`executor.close()` in the process running it; the next message restarts it),
 * `aborted`, `failed` (the workflow itself failed).
 *
 * @example
 * const reason: PersistentEndReason = 'idle_timeout';
 */
export type PersistentEndReason = 'parked' | 'idle_timeout' | 'suspended' | 'shutdown' | 'aborted' | 'failed';

/**
 * The durable routing record of a persistent session, kept in the session's metadata: which workflow owns the
 * inbox, its phase, and how to start it (anyone who finds it missing starts it from `start`).
 *
 * @example
 * const marker = readPersistentMarker(state.metadata);
 */
export interface PersistentMarker {
  /** `metadata.dbosWorkflowId`. */
  workflowId: string;
  phase: PersistentPhase;
  generation: number;
  endReason?: PersistentEndReason;
  /** Epoch ms (durable clock) at which a parked session's idle timeout passes. */
  idleDeadlineAt?: number;
  /** The workflow's start input. */
  start?: PersistentWorkflowInput;
  /** Messages a turn that parked for a human left queued: the resume that continues it runs them after it. */
  deferred?: PersistentTurnMessage[];
}

const KEYS = {
  workflowId: 'dbosWorkflowId',
  phase: 'dbosPersistentPhase',
  generation: 'dbosPersistentGeneration',
  endReason: 'dbosPersistentEndReason',
  idleDeadlineAt: 'dbosPersistentIdleDeadlineAt',
  start: 'dbosPersistentStart',
  deferred: 'dbosPersistentDeferred',
} as const;

/**
 * Read the persistent marker from session metadata (`undefined` when the session has none).
 *
 * @example
 * readPersistentMarker({ dbosWorkflowId: 'a__s1__persistent', dbosPersistentPhase: 'live', dbosPersistentGeneration: '0' });
 */
export function readPersistentMarker(metadata: Record<string, string> | undefined): PersistentMarker | undefined {
  const workflowId = metadata?.[KEYS.workflowId];
  if (metadata === undefined || typeof workflowId !== 'string') return undefined;
  const phase = metadata[KEYS.phase];
  const endReason = metadata[KEYS.endReason];
  const deadline = metadata[KEYS.idleDeadlineAt];
  const start = metadata[KEYS.start];
  const deferred = metadata[KEYS.deferred];
  return {
    workflowId,
    phase: phase === 'closing' || phase === 'closed' ? phase : 'live',
    generation: Number(metadata[KEYS.generation] ?? '0') || 0,
    ...(typeof endReason === 'string' ? { endReason: endReason as PersistentEndReason } : {}),
    ...(typeof deadline === 'string' ? { idleDeadlineAt: Number(deadline) } : {}),
    ...(typeof start === 'string' ? { start: JSON.parse(start) as PersistentWorkflowInput } : {}),
    ...(typeof deferred === 'string' ? { deferred: JSON.parse(deferred) as PersistentTurnMessage[] } : {}),
  };
}

/**
 * The metadata keys of a marker, for `patchMetadata` (absent optional fields are deleted).
 *
 * @example
 * await stateStore.patchMetadata(sessionId, persistentMarkerPatch(marker));
 */
export function persistentMarkerPatch(marker: PersistentMarker): Record<string, string | null> {
  return {
    [KEYS.workflowId]: marker.workflowId,
    [KEYS.phase]: marker.phase,
    [KEYS.generation]: String(marker.generation),
    [KEYS.endReason]: marker.endReason ?? null,
    [KEYS.idleDeadlineAt]: marker.idleDeadlineAt === undefined ? null : String(marker.idleDeadlineAt),
    [KEYS.start]: marker.start === undefined ? null : JSON.stringify(marker.start),
    [KEYS.deferred]: marker.deferred === undefined || marker.deferred.length === 0 ? null : JSON.stringify(marker.deferred),
  };
}

/**
 * Session metadata with `marker` written over it (for a version-checked `saveState`).
 *
 * @example
 * await stateStore.saveState(sessionId, { metadata: withPersistentMarker(state.metadata, next) }, { expectedVersion: state.version });
 */
export function withPersistentMarker(metadata: Record<string, string> | undefined, marker: PersistentMarker): Record<string, string> {
  const next: Record<string, string> = { ...(metadata ?? {}) };
  for (const [key, value] of Object.entries(persistentMarkerPatch(marker))) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/**
 * True when a parked session's idle timeout has passed at `now`: its end reason is then `idle_timeout`, decided
 * lazily (a parked session has no workflow that could notice the deadline). Pure.
 *
 * @example
 * parkedPastIdleTimeout({ workflowId: 'w', phase: 'closed', generation: 0, endReason: 'parked', idleDeadlineAt: 1_000 }, 2_000); // true
 */
export function parkedPastIdleTimeout(marker: PersistentMarker | undefined, now: number): boolean {
  return marker?.phase === 'closed' && marker.endReason === 'parked' && marker.idleDeadlineAt !== undefined && now >= marker.idleDeadlineAt;
}

/**
 * Workflow id of a persistent session's restart (generation `generation` ≥ 1): `${agentType}__${sessionId}__persistent__restart-${generation}`.
 *
 * @example
 * persistentRestartWorkflowId('chat', 's1', 2); // 'chat__s1__persistent__restart-2'
 */
export function persistentRestartWorkflowId(agentType: string, sessionId: string, generation: number): string {
  return `${agentType}__${sessionId}__persistent__restart-${generation}`;
}

/**
 * The per-turn key of a persistent turn's process-local registrations (hooks, stream-reset tracking).
 *
 * @example
 * persistentTurnKey('run-1'); // 'persistent-turn:run-1'
 */
export function persistentTurnKey(runId: string): string {
  return `persistent-turn:${runId}`;
}
