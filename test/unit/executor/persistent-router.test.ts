import { describe, expect, it } from 'vitest';
import { AgentAlreadyRunningError, DBOSPersistentSessionTerminatedError, StaleStateError } from '../../../src/errors/index.js';
import { routePersistentMessage } from '../../../src/executor/persistent-router.js';
import { withPersistentMarker, type PersistentTurnMessage, type PersistentWorkflowInput } from '../../../src/orchestration/persistent-session.js';
import { InMemoryStateStore } from '../../../src/store/memory/in-memory-state-store.js';
import type { SessionStateWrite } from '../../../src/types/session.js';

const message: PersistentTurnMessage = { kind: 'turn', runId: 'run-1' };
const restartInput = (): PersistentWorkflowInput => ({
  sessionId: 's1',
  agentType: 'chat',
  streamId: 's1',
  workflowId: 'chat__s1__persistent__restart-1',
  generation: 1,
  rootSessionId: 's1',
  hitlWarmWindowMs: 1,
  idleWarmWindowMs: 1,
  idleTimeoutMs: 1,
  initialMessages: [message],
});

/** A store where every versioned write loses its race (another writer always got there first). */
class AlwaysStaleStore extends InMemoryStateStore {
  override async saveState(sessionId: string, state: SessionStateWrite, options?: { expectedVersion?: number }): Promise<{ newVersion: number }> {
    if (options?.expectedVersion !== undefined) throw new StaleStateError(sessionId, options.expectedVersion, options.expectedVersion + 1);
    return super.saveState(sessionId, state, options);
  }
}

describe('routing a message to a persistent session that ended', () => {
  it('throws DBOSPersistentSessionTerminatedError when every restart loses its race (after one internal retry)', async () => {
    const store = new AlwaysStaleStore();
    await store.createSession('s1', { agentType: 'chat', mode: 'persistent', metadata: withPersistentMarker({}, { workflowId: 'chat__s1__persistent', phase: 'closed', generation: 0, endReason: 'parked' }) });
    const error = await routePersistentMessage(store, 's1', message, { restartInput }).catch((caught: unknown) => caught);
    expect(DBOSPersistentSessionTerminatedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'DBOS_PERSISTENT_SESSION_TERMINATED', data: { sessionId: 's1' } });
  });

  it('refuses a new message while a turn is parked waiting for a human (only resume() may restart it)', async () => {
    const store = new InMemoryStateStore();
    await store.createSession('s1', { agentType: 'chat', mode: 'persistent', metadata: withPersistentMarker({}, { workflowId: 'w', phase: 'closed', generation: 0, endReason: 'suspended' }) });
    const error = await routePersistentMessage(store, 's1', message, { restartInput }).catch((caught: unknown) => caught);
    expect(AgentAlreadyRunningError.isInstance(error)).toBe(true);
  });
});
