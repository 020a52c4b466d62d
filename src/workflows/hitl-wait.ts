import { DBOS } from '@dbos-inc/dbos-sdk';
import { openCallIds } from '../orchestration/hitl-decisions.js';
import { ClientToolStep } from '../steps/client-tool.step.js';
import type { ToolOutcome } from '../orchestration/tool-outcome.js';
import type { HitlCall, Submission, SuspensionRecord } from '../orchestration/hitl-types.js';
import type { RunScope } from '../steps/step-scope.js';
import type { ParentLink } from '../orchestration/workflow-input.js';
import type { Message } from '../types/message.js';
import { callReceiver } from './workflow-messages.js';

/** How a human-in-the-loop wait ended. */
export type HitlWaitOutcome =
  { kind: 'answered'; submissions: Record<string, Submission>; expired: string[] } | { kind: 'parked' } | { kind: 'interrupted'; reason?: string };

/** What the wait needs besides the scope. */
export interface HitlWaitInput {
  step: number;
  calls: HitlCall[];
  rootSessionId: string;
  /** How long the workflow stays warm (answers continue in place) before it parks. */
  warmWindowMs: number;
  /** Committed with the suspension if the run parks. */
  messages: Message[];
  toolOutcomes: ToolOutcome[];
  suspension: SuspensionRecord;
  /** Set for a sub-agent run (parking keeps the shared stream open). */
  parent?: ParentLink;
}

/**
 * Workflow-body helper: announce the calls, then wait — warm — on the call's channel (`callReceiver`, a DBOS recv with a timeout) until
 * every call is answered (submission or client deadline), an interrupt arrives, or the warm window passes
 * (then the suspension is committed and the run parks). Submissions are read from the store, the recv is only
 * the wake-up, so a message lost to a crash or a race costs at most one timeout, never a result.
 * Deterministic: time comes from `DBOS.now()`, every effect from a step.
 */
export async function waitForHumans(scope: RunScope, input: HitlWaitInput): Promise<HitlWaitOutcome> {
  const ids = input.calls.map(({ call }) => call.toolCallId);
  const { createdAt } = await ClientToolStep.suspend({ ...scope, step: input.step, calls: input.calls, rootSessionId: input.rootSessionId });
  const warmUntil = (await DBOS.now()) + input.warmWindowMs;
  const deadlines = input.calls.flatMap(({ timeoutMs }) => (timeoutMs === undefined ? [] : [createdAt + timeoutMs]));
  for (;;) {
    const polled = await ClientToolStep.poll({ ...scope, toolCallIds: ids });
    if (polled.interrupted) {
      await ClientToolStep.park({
        ...scope,
        step: input.step,
        messages: input.messages,
        toolOutcomes: input.toolOutcomes,
        suspension: input.suspension,
        force: true,
        ...parentOf(input),
      });
      return { kind: 'interrupted', ...(polled.interruptReason === undefined ? {} : { reason: polled.interruptReason }) };
    }
    const open = openCallIds(ids, polled);
    const first = open[0];
    if (first === undefined) return { kind: 'answered', submissions: polled.submissions, expired: polled.expired };
    const now = await DBOS.now();
    if (now >= warmUntil) {
      const { parked } = await ClientToolStep.park({
        ...scope,
        step: input.step,
        messages: input.messages,
        toolOutcomes: input.toolOutcomes,
        suspension: input.suspension,
        force: false,
        ...parentOf(input),
      });
      if (parked) return { kind: 'parked' };
      continue;
    }
    const wakeAt = Math.min(warmUntil, ...deadlines.filter((deadline) => deadline > now));
    await callReceiver.receive(first, wakeAt - now);
  }
}

function parentOf(input: HitlWaitInput): { parent?: ParentLink } {
  return input.parent === undefined ? {} : { parent: input.parent };
}
