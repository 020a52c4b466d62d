/**
 * What the fake LLM answers in each human-in-the-loop drill, by agent step. Tool call ids are explicit, so
 * every process (and every assertion) names the same calls. No scenario needs a kill window in the LLM: the
 * drills kill while the run waits for a human.
 */
import { scenarioByStep as byStep, type DrillScenario } from '../support/drill-scenarios.js';

/**
 * Tool call ids of the drills.
 *
 * @example
 * await submitCity(sessionId, HITL_CALLS.pickCity);
 */
export const HITL_CALLS = {
  lookup: 'call_1_lookup_a',
  pickCity: 'call_1_pick_city',
  transfer: 'call_1_transfer',
} as const;

/**
 * The final answers (step 2) of the drills.
 *
 * @example
 * expect(result.output).toBe(HITL_ANSWERS.trip);
 */
export const HITL_ANSWERS = {
  trip: 'Booked the trip after a.',
  transfer: 'Transferred 250.',
} as const;

const lookupA = { id: HITL_CALLS.lookup, name: 'lookup', arguments: { key: 'a' } };
const pickCity = { id: HITL_CALLS.pickCity, name: 'pick_city', arguments: { prompt: 'Where to?' } };
const transfer = { id: HITL_CALLS.transfer, name: 'transfer', arguments: { amount: 250 } };

/**
 * The scenarios, one per kind of step-1 batch.
 *
 * @example
 * env.llm.register('kill-client', HITL_SCENARIOS.mixedBatch, { crash: true });
 */
export const HITL_SCENARIOS = {
  /** Step 1: a server lookup and a client tool in one batch; step 2: the answer. */
  mixedBatch: byStep([
    { type: 'tool_calls', toolCalls: [lookupA, pickCity] },
    { type: 'text', text: HITL_ANSWERS.trip },
  ]),
  /** Step 1: a transfer above the approval threshold; step 2: the answer. */
  gatedTransfer: byStep([
    { type: 'tool_calls', toolCalls: [transfer] },
    { type: 'text', text: HITL_ANSWERS.transfer },
  ]),
  /** Step 1: a client tool alone; step 2: the answer. */
  clientOnly: byStep([
    { type: 'tool_calls', toolCalls: [pickCity] },
    { type: 'text', text: HITL_ANSWERS.trip },
  ]),
} satisfies Record<string, DrillScenario>;
