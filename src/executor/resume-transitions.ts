import { StaleStateError } from '../errors/index.js';
import type { SuspensionRecord } from '../orchestration/hitl-types.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { UserMessage } from '../types/message.js';
import type { SessionState } from '../types/session.js';
import type { TurnInput } from './run-launcher.js';
import type { ResumeOptions } from './types.js';

/**
 * The turn input of a resumed run: a parked step to settle, a rewind, or a message to append first.
 *
 * @example
 * const turn = resumeTurnInput(state.pendingClientToolCalls ?? {}, run, runId, { mode: 'continue' });
 */
export function resumeTurnInput(
  pending: Record<string, { submittedAt?: number }>,
  run: { runId: string; metadata?: Record<string, unknown> } | null,
  runId: string,
  options: ResumeOptions,
): TurnInput {
  const suspension = (run?.metadata as { suspension?: SuspensionRecord } | undefined)?.suspension;
  const mode = options.mode ?? 'continue';
  // Rewinding drops the parked step (and its pending calls) with everything after the checkpoint.
  const open = mode !== 'from_checkpoint' && (suspension?.hitlCalls.some(({ call }) => pending[call.toolCallId] !== undefined) ?? false);
  const text = mode === 'with_message' ? options.message : mode === 'with_confirmation' ? (options.message ?? 'Confirmed.') : undefined;
  const userMessage: UserMessage | undefined = text === undefined ? undefined : { id: `${runId}:0:0`, role: 'user', content: text };
  return {
    ...(userMessage === undefined ? {} : { userMessage }),
    ...(run === null ? {} : { resume: { previousRunId: run.runId, ...(open && suspension !== undefined ? { suspension } : {}) } }),
  };
}

/**
 * Take the session for a resume, exactly once among concurrent callers. An interrupted/paused session swaps
 * its status; a parked one stays `active`, so the swap clears `suspendedStepId` under the version read: a
 * loser re-reads a session that is no longer parked and waits for the winner's run instead of starting one.
 *
 * @example
 * if (!(await takeForResume(stateStore, sessionId, state, parked))) continue; // lost the race: decide again
 */
export async function takeForResume(stateStore: SessionStateStore, sessionId: string, state: SessionState, parked: boolean): Promise<boolean> {
  if (!parked) return (await stateStore.compareAndSetStatus(sessionId, [state.status], 'active', { expectedVersion: state.version })).ok;
  try {
    await stateStore.saveState(sessionId, { suspendedStepId: undefined }, { expectedVersion: state.version });
    return true;
  } catch (error) {
    if (StaleStateError.isInstance(error)) return false;
    throw error;
  }
}
