import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { UsageRecord } from '../../../types/usage.js';
import type { StepRecordsContractCheck } from './check.js';
import { inTransaction, usageStoreOf } from './subject.js';

/** An LLM call and a tool call of step 1 of run r1 in `sessionId`. */
function stepUsage(sessionId: string): UsageRecord[] {
  const createdAt = 1_700_000_000_000;
  return [
    { id: 'r1:1:llm', sessionId, runId: 'r1', kind: 'llm', name: 'model-x', step: 1, inputTokens: 10, outputTokens: 2, totalTokens: 12, success: true, createdAt },
    { id: 'r1:1:tool:c1', sessionId, runId: 'r1', kind: 'tool', name: 'search', step: 1, durationMs: 7, success: true, createdAt: createdAt + 1 },
  ];
}

const ONCE = { llmCalls: 1, inputTokens: 10, outputTokens: 2, totalTokens: 12, toolCalls: 1, toolFailures: 0, toolDurationMs: 7 };

/**
 * Checks of `UsageStore.stepRecords`: usage recorded on a caller's connection (nothing after ROLLBACK, once after
 * COMMIT, idempotent by record id).
 *
 * @example
 * const checks = usageStoreChecks();
 */
export function usageStoreChecks(): StepRecordsContractCheck[] {
  return [
    {
      component: 'usageStore',
      name: 'usageStore.stepRecords.recordOn inside BEGIN … ROLLBACK leaves nothing; inside BEGIN … COMMIT counts once, at COMMIT; again, nothing more',
      run: async (subject) => {
        const { store, stepRecords } = usageStoreOf(subject);
        const sessionId = `records-usage-${randomUUID()}`;
        const records = stepUsage(sessionId);
        await inTransaction(subject, 'ROLLBACK', (connection) => stepRecords.recordOn(connection, records));
        expect(await store.listRecords(sessionId), 'after ROLLBACK').toEqual([]);
        await inTransaction(subject, 'COMMIT', async (connection) => {
          await stepRecords.recordOn(connection, []);
          await stepRecords.recordOn(connection, records);
          expect(await store.listRecords(sessionId), 'before COMMIT').toEqual([]);
        });
        expect((await store.listRecords(sessionId)).map((record) => record.id)).toEqual(['r1:1:llm', 'r1:1:tool:c1']);
        expect(await store.getSessionUsage(sessionId)).toEqual(ONCE);
        await inTransaction(subject, 'COMMIT', (connection) => stepRecords.recordOn(connection, records));
        expect(await store.listRecords(sessionId), 'after a repeated COMMIT').toHaveLength(2);
        expect(await store.getSessionUsage(sessionId)).toEqual(ONCE);
      },
    },
  ];
}
