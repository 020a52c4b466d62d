import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecord, UsageSummary } from '../../types/usage.js';
import type { UsageStore } from '../../usage/usage-store.js';

/**
 * Creates the usage store under test (migrated, connected); called once per `describeUsageStoreContract` block.
 *
 * @example
 * const factory: UsageStoreContractFactory = async () => new InMemoryUsageStore();
 */
export type UsageStoreContractFactory = () => Promise<UsageStore>;

const ZERO: UsageSummary = { llmCalls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, toolCalls: 0, toolFailures: 0, toolDurationMs: 0 };

/**
 * Register the `UsageStore` contract suite (vitest) for one implementation: sums per session and per run,
 * idempotency by record id (within a batch, across calls and under concurrency), record ids scoped to their
 * session, sums over a session tree, listing in recording order with a run filter, and kinds that are listed but not summed. Every test
 * uses fresh session ids, so one store serves the whole suite; it is closed afterwards.
 *
 * @example
 * describeUsageStoreContract('InMemoryUsageStore', async () => new InMemoryUsageStore());
 */
export function describeUsageStoreContract(name: string, factory: UsageStoreContractFactory): void {
  describe(`UsageStore contract: ${name}`, () => {
    let store: UsageStore | undefined;
    beforeAll(async () => {
      store = await factory();
    });
    afterAll(async () => {
      await store?.close();
    });
    const subject = (): UsageStore => {
      if (store === undefined) throw new Error('the usage store factory has not run (or failed)');
      return store;
    };
    let clock = 1_700_000_000_000;
    const llm = (sessionId: string, runId: string, step: number, tokens: [number, number]): UsageRecord => ({
      id: `${runId}:${step}:llm`,
      sessionId,
      runId,
      kind: 'llm',
      name: 'model-x',
      step,
      inputTokens: tokens[0],
      outputTokens: tokens[1],
      totalTokens: tokens[0] + tokens[1],
      success: true,
      createdAt: (clock += 1),
    });
    const tool = (sessionId: string, runId: string, step: number, toolCallId: string, durationMs: number, success = true): UsageRecord => ({
      id: `${runId}:${step}:tool:${toolCallId}`,
      sessionId,
      runId,
      kind: 'tool',
      name: 'search',
      step,
      durationMs,
      success,
      createdAt: (clock += 1),
    });
    /** Tool records may read back with zero token counts; compare what was recorded. */
    const comparable = (record: UsageRecord): UsageRecord =>
      record.kind === 'llm'
        ? record
        : { ...record, inputTokens: record.inputTokens ?? 0, outputTokens: record.outputTokens ?? 0, totalTokens: record.totalTokens ?? 0 };

    it('reports zeros and no records for an unknown session, and accepts an empty batch', async () => {
      const sessionId = `usage-${randomUUID()}`;
      await subject().record([]);
      expect(await subject().getSessionUsage(sessionId)).toEqual(ZERO);
      expect(await subject().getRunUsage(sessionId, 'run-1')).toEqual(ZERO);
      expect(await subject().listRecords(sessionId)).toEqual([]);
    });

    it('sums LLM tokens and tool calls per session and per run; failures and durations count', async () => {
      const sessionId = `usage-${randomUUID()}`;
      await subject().record([llm(sessionId, 'run-1', 1, [100, 20]), tool(sessionId, 'run-1', 1, 'c1', 30), tool(sessionId, 'run-1', 1, 'c2', 12, false)]);
      await subject().record([llm(sessionId, 'run-2', 1, [7, 3])]);
      expect(await subject().getSessionUsage(sessionId)).toEqual({
        llmCalls: 2,
        inputTokens: 107,
        outputTokens: 23,
        totalTokens: 130,
        toolCalls: 2,
        toolFailures: 1,
        toolDurationMs: 42,
      });
      expect(await subject().getRunUsage(sessionId, 'run-1')).toEqual({
        llmCalls: 1,
        inputTokens: 100,
        outputTokens: 20,
        totalTokens: 120,
        toolCalls: 2,
        toolFailures: 1,
        toolDurationMs: 42,
      });
      expect(await subject().getRunUsage(sessionId, 'run-2')).toEqual({ ...ZERO, llmCalls: 1, inputTokens: 7, outputTokens: 3, totalTokens: 10 });
    });

    it('sums a whole session tree from its root (root, children, grandchildren), and nothing outside it', async () => {
      const root = `usage-${randomUUID()}`;
      const child = `${root}-sub-c1`;
      const grandchild = `${child}-sub-c2`;
      const stranger = `${root}-other`;
      const inTree = (record: UsageRecord): UsageRecord => ({ ...record, rootSessionId: root });
      await subject().record([inTree(llm(root, 'run-1', 1, [10, 1])), inTree(tool(root, 'run-1', 1, 'c1', 5))]);
      await subject().record([inTree(llm(child, 'run-c', 1, [20, 2])), inTree(llm(grandchild, 'run-g', 1, [30, 3]))]);
      await subject().record([llm(stranger, 'run-s', 1, [1000, 1000])]);
      expect(await subject().getTreeUsage(root)).toEqual({
        llmCalls: 3,
        inputTokens: 60,
        outputTokens: 6,
        totalTokens: 66,
        toolCalls: 1,
        toolFailures: 0,
        toolDurationMs: 5,
      });
      expect(await subject().getSessionUsage(child)).toEqual({ ...ZERO, llmCalls: 1, inputTokens: 20, outputTokens: 2, totalTokens: 22 });
      // A record without a root counts for its own session's tree only.
      expect(await subject().getTreeUsage(stranger)).toEqual({ ...ZERO, llmCalls: 1, inputTokens: 1000, outputTokens: 1000, totalTokens: 2000 });
      expect((await subject().listRecords(grandchild))[0]?.rootSessionId).toBe(root);
    });

    it('lists records as recorded, in recording order, optionally for one run', async () => {
      const sessionId = `usage-${randomUUID()}`;
      const records = [
        llm(sessionId, 'run-1', 1, [5, 5]),
        tool(sessionId, 'run-1', 1, 'c1', 8),
        llm(sessionId, 'run-2', 1, [1, 2]),
        tool(sessionId, 'run-2', 1, 'c9', 4, false),
      ];
      await subject().record(records.slice(0, 2));
      await subject().record(records.slice(2));
      expect((await subject().listRecords(sessionId)).map(comparable)).toEqual(records.map(comparable));
      expect((await subject().listRecords(sessionId, { runId: 'run-2' })).map(comparable)).toEqual(records.slice(2).map(comparable));
    });

    it('records an id once: repeated in a batch, recorded again later, or recorded concurrently (first write wins)', async () => {
      const sessionId = `usage-${randomUUID()}`;
      const first = llm(sessionId, 'run-1', 1, [10, 1]);
      await subject().record([first, { ...first, inputTokens: 999 }]);
      await subject().record([{ ...first, inputTokens: 555 }]);
      const racing = tool(sessionId, 'run-1', 1, 'c1', 5);
      await Promise.all(Array.from({ length: 8 }, () => subject().record([racing])));
      expect(await subject().getSessionUsage(sessionId)).toEqual({
        ...ZERO,
        llmCalls: 1,
        inputTokens: 10,
        outputTokens: 1,
        totalTokens: 11,
        toolCalls: 1,
        toolDurationMs: 5,
      });
      expect((await subject().listRecords(sessionId)).map(comparable)).toEqual([first, racing].map(comparable));
    });

    it('scopes record ids to their session', async () => {
      const [left, right] = [`usage-${randomUUID()}`, `usage-${randomUUID()}`];
      await subject().record([llm(left, 'run-1', 1, [1, 1]), llm(right, 'run-1', 1, [2, 2])]);
      expect((await subject().getSessionUsage(left)).totalTokens).toBe(2);
      expect((await subject().getSessionUsage(right)).totalTokens).toBe(4);
      expect(await subject().listRecords(left)).toHaveLength(1);
    });

    it('lists client-tool wait records without counting them as LLM or tool calls', async () => {
      const sessionId = `usage-${randomUUID()}`;
      const wait: UsageRecord = {
        id: 'run-1:1:wait:c1',
        sessionId,
        runId: 'run-1',
        kind: 'client_tool_wait_ms',
        name: 'pick_file',
        step: 1,
        durationMs: 2500,
        success: true,
        createdAt: (clock += 1),
      };
      await subject().record([wait]);
      expect(await subject().getSessionUsage(sessionId)).toEqual(ZERO);
      expect((await subject().listRecords(sessionId)).map(comparable)).toEqual([comparable(wait)]);
    });
  });
}
