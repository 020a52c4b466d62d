import type { PlannedRemoteCall } from '../orchestration/index.js';
import type { RemoteOutcome } from '../orchestration/remote-sub-agents.js';
import { errorMessage, resultFor, type IndexedMessage } from '../orchestration/step-messages.js';
import { RemoteSubAgentStep, type RemoteCallProgress } from '../steps/remote-sub-agent.step.js';
import type { TurnContext } from './turn-types.js';

/** A remote sub-agent call and what became of it. */
export interface RemoteCallOutcome {
  call: PlannedRemoteCall;
  outcome: RemoteOutcome;
}

/**
 * `runExecuteRemoteSubAgent`: the dedicated execution path of remote sub-agent calls. All calls start together
 * (one `RemoteSubAgentStep.start` each), then advance in rounds: each round runs one bounded stream window per
 * call still open, all issued in call order, so the durable step ids are the same under replay. A long remote
 * run is many short checkpointed windows, never one endless HTTP call a crash would repeat from zero.
 */
export async function runRemoteCalls(context: TurnContext, step: number, calls: readonly PlannedRemoteCall[]): Promise<RemoteCallOutcome[]> {
  if (calls.length === 0) return [];
  const { scope } = context;
  const progress: RemoteCallProgress[] = await Promise.all(calls.map((call) => RemoteSubAgentStep.start({ ...scope, step, call })));
  for (;;) {
    const open = progress.flatMap((entry, index) => (entry.kind === 'continue' ? [{ entry, index }] : []));
    if (open.length === 0) break;
    const next = await Promise.all(
      open.map(({ entry, index }) => RemoteSubAgentStep.window({ ...scope, step, call: calls[index] as PlannedRemoteCall, progress: entry })),
    );
    open.forEach(({ index }, position) => {
      progress[index] = next[position] as RemoteCallProgress;
    });
  }
  return calls.map((call, index) => {
    const entry = progress[index];
    return { call, outcome: entry?.kind === 'done' ? entry.outcome : { kind: 'error', error: 'The remote sub-agent did not finish.' } };
  });
}

/** The tool result message of a remote call: the remote output, or an error for the model. */
export function remoteMessage({ call, outcome }: RemoteCallOutcome): IndexedMessage {
  return outcome.kind === 'result' ? resultFor(call, outcome.output) : errorMessage(call, outcome.error);
}
