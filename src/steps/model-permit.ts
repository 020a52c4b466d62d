import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { estimateTokens, permitHolder, type ModelPermit } from '../limits/model-limits.js';
import type { RunScope } from '../orchestration/workflow-input.js';
import type { Message } from '../types/message.js';
import { pauseUnlessInterrupted } from './interruptible-pause.js';
import { modelKeyOf, type StepEnvironment } from './step-scope.js';
import { chunkKey } from './stream-writers.js';

/** A permit taken (release it), no limit on this call, or an interrupt that ended the wait. */
export type PermitOutcome = { kind: 'permit'; permit: ModelPermit } | { kind: 'unlimited' } | { kind: 'interrupted' };

/**
 * Take a permit for one LLM call from the executor's `modelLimiter` (fleet-wide limits of the call's model key),
 * waiting inside the step while the fleet is at its limit. The first wait of each call is announced as a `custom`
 * chunk `rate_limited` ({ reason, waitMs, source: 'fleet' }, keyed); an interrupt ends the wait.
 *
 * @example
 * const outcome = await acquireModelPermit(environment, input, messages, 1);
 */
export async function acquireModelPermit(
  environment: StepEnvironment,
  scope: RunScope & { step: number },
  messages: readonly Message[],
  attempt: number,
): Promise<PermitOutcome> {
  const { dependencies, agent, emitter } = environment;
  const limiter = dependencies.modelLimiter;
  if (limiter === undefined) return { kind: 'unlimited' };
  const modelKey = modelKeyOf(environment) ?? '*';
  if (limiter.limitOf(modelKey) === undefined) return { kind: 'unlimited' };
  const estimatedTokens = estimateTokens(JSON.stringify(messages).length, agent.llmConfig.maxOutputTokens);
  const holder = permitHolder(DBOS.executorID, scope.workflowId, scope.step, randomUUID());
  for (let waits = 0; ; waits += 1) {
    const answer = await limiter.tryAcquire({ modelKey, holder, estimatedTokens });
    if (answer.granted) return { kind: 'permit', permit: answer.permit };
    if (waits === 0) {
      const data = { reason: answer.reason, waitMs: answer.waitMs, source: 'fleet' };
      await emitter.emit({ type: 'custom', eventName: 'rate_limited', data }, { key: chunkKey(scope, 'fleet_limit', String(attempt)) });
      await emitter.flush();
    }
    if (await pauseUnlessInterrupted(dependencies.stateStore, scope.sessionId, answer.waitMs)) return { kind: 'interrupted' };
  }
}

/**
 * Release a call's permit with the tokens it used (best effort: an unreleased permit lapses after the limiter's lease).
 *
 * @example
 * await releaseModelPermit(environment, outcome, result?.usage.totalTokens);
 */
export async function releaseModelPermit(environment: StepEnvironment, outcome: PermitOutcome, usedTokens: number | undefined): Promise<void> {
  if (outcome.kind !== 'permit') return;
  await environment.dependencies.modelLimiter?.release(outcome.permit, usedTokens).catch((error: unknown) => {
    environment.dependencies.logger.warn('llm.permit_release_failed', { error: error instanceof Error ? error.name : 'unknown' });
  });
}
