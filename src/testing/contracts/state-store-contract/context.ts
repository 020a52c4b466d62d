import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { SessionStateStore } from '../../../store/state-store.js';
import type { CreateRunInput, CreateSessionOptions, PendingClientToolCall, SessionState } from '../../../types/session.js';

/**
 * What each contract group gets: the store under test and helpers.
 *
 * @example
 * const { sessionId } = await context.createSession('label');
 */
export interface ContractContext {
  /** The store under test (available inside tests). */
  readonly store: SessionStateStore;
  /** A fresh session id for one test. */
  sessionId(label: string): string;
  /** Create a session with a fresh id and return its state. */
  createSession(label: string, options?: Partial<CreateSessionOptions>): Promise<SessionState>;
  /** Everything a store holds for a session, to assert that a failed call wrote nothing. */
  snapshot(sessionId: string): Promise<unknown>;
}

/**
 * Build the context of a contract suite around a lazily available store.
 *
 * @example
 * const context = createContractContext(() => store);
 */
export function createContractContext(getStore: () => SessionStateStore): ContractContext {
  const context: ContractContext = {
    get store() {
      return getStore();
    },
    sessionId: (label) => `${label}-${randomUUID()}`,
    createSession: async (label, options = {}) => {
      const sessionId = context.sessionId(label);
      return getStore().createSession(sessionId, { agentType: 'contract-agent', ...options });
    },
    snapshot: async (sessionId) => {
      const store = getStore();
      return {
        state: await store.loadState(sessionId),
        messages: await store.getMessages(sessionId),
        checkpoints: await store.listCheckpoints(sessionId),
        latest: await store.getLatestCheckpoint(sessionId),
        staging: await store.getStagedChanges(sessionId),
        runs: await store.listRuns(sessionId),
        refs: await store.getSubSessionRefs(sessionId),
      };
    },
  };
  return context;
}

/**
 * A run input with sensible defaults.
 *
 * @example
 * await store.createRun(id, runInput('run-1'));
 */
export function runInput(runId: string, overrides: Partial<CreateRunInput> = {}): CreateRunInput {
  return { runId, status: 'running', stepCount: 0, startSequence: 0, startedAt: 1_700_000_000_000, ...overrides };
}

/**
 * A client tool call waiting in a session (`pendingClientToolCalls`), answered when `submittedAt` is given.
 *
 * @example
 * await store.saveState(id, { pendingClientToolCalls: { a: pendingCall('a'), b: pendingCall('b', 5) } });
 */
export function pendingCall(toolCallId: string, submittedAt?: number): PendingClientToolCall {
  return {
    toolCallId,
    toolName: 'ask',
    kind: 'client',
    input: {},
    ownerSessionId: 'owner',
    agentType: 'assistant',
    runId: 'r1',
    createdAt: 1,
    ...(submittedAt === undefined ? {} : { submittedAt }),
  };
}

/**
 * Assert that `promise` rejects with an error whose `code` is `code`.
 *
 * @example
 * await expectCode(store.createSession(id, { agentType: 'a' }), 'SESSION_ALREADY_EXISTS');
 */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ code });
}

/**
 * Settle `count` calls at once and split fulfilled values from rejections.
 *
 * @example
 * const { fulfilled, rejected } = await race(20, () => store.createSession(id, { agentType: 'a' }));
 */
export async function race<T>(count: number, call: (index: number) => Promise<T>): Promise<{ fulfilled: T[]; rejected: unknown[] }> {
  const results = await Promise.allSettled(Array.from({ length: count }, (_, index) => call(index)));
  return {
    fulfilled: results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])),
    rejected: results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : [])),
  };
}
