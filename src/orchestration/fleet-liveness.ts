/**
 * What one sweep saw of another fleet member: whether its lease (a session advisory lock its process holds on a
 * connection of its own) was free, and when.
 *
 * @example
 * const seen: LeaseObservation = { executorId: 'worker-2', free: true, at: Date.now() };
 */
export interface LeaseObservation {
  executorId: string;
  free: boolean;
  at: number;
}

/**
 * The sweeper's memory: since when each member's lease has been seen free without interruption.
 *
 * @example
 * const memory: LivenessMemory = new Map([['worker-2', 1_700_000_000_000]]);
 */
export type LivenessMemory = Map<string, number>;

/**
 * The sweeper's own standing: since when its lease connection has been up (a sweeper that just reconnected — after
 * a Postgres restart, say — has not watched long enough to tell a dead member from one still reconnecting).
 *
 * @example
 * const self: SweeperStanding = { connectedSince: Date.now() - 10_000 };
 */
export interface SweeperStanding {
  connectedSince: number;
}

/**
 * Decide from one observation whether a member is dead: its lease was seen free on every sweep for at least
 * `deadAfterMs`, while this sweeper's own connection was up all that time. Updates `memory` (a held lease forgets
 * the member's free streak) and returns true when the member's pending runs should be taken over.
 *
 * @example
 * if (isDeadMember(memory, observation, standing, 5_000)) await takeOver(observation.executorId);
 */
export function isDeadMember(memory: LivenessMemory, observation: LeaseObservation, standing: SweeperStanding, deadAfterMs: number): boolean {
  if (!observation.free) {
    memory.delete(observation.executorId);
    return false;
  }
  // A free streak counts only from when this sweeper could watch it.
  const since = Math.max(memory.get(observation.executorId) ?? observation.at, standing.connectedSince);
  memory.set(observation.executorId, since);
  return observation.at - since >= deadAfterMs;
}
