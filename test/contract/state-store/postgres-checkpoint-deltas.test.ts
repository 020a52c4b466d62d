import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../../src/store/index.js';
import { SNAPSHOT_CHAIN_RATIO } from '../../../src/store/postgres/checkpoint-chain.js';
import type { TestDatabase } from '../../support/services.js';
import { migrateBefore, openStoreDatabase, type StoreDatabase } from '../../support/store-database.js';

const STEPS = 200;
const ITEM_BYTES = 1024;

let database: TestDatabase;
let admin: pg.Client;
let store: PostgresStateStore;
let opened: StoreDatabase;
beforeAll(async () => {
  opened = await openStoreDatabase('checkpoint_deltas');
  ({ database, admin, store } = opened);
});
afterAll(async () => {
  await opened.close();
});

interface RowStats {
  checkpoint_id: string;
  snapshot: boolean;
  chain_bytes: string;
  row_bytes: number;
}

async function rowsOf(sessionId: string, schema = 'public'): Promise<RowStats[]> {
  const result = await admin.query<RowStats>(
    `SELECT checkpoint_id, custom_state IS NOT NULL AS snapshot, chain_bytes, pg_column_size(checkpoint.*) AS row_bytes
     FROM "${schema}".__agents_checkpoints AS checkpoint WHERE session_id = $1 ORDER BY position`,
    [sessionId],
  );
  return result.rows;
}

/** Bytes of the session's customState as jsonb text (what the snapshot policy measures). */
async function stateBytes(sessionId: string): Promise<number> {
  const state = (await store.loadState(sessionId))?.customState;
  const result = await admin.query<{ bytes: number }>('SELECT octet_length($1::jsonb::text) AS bytes', [JSON.stringify(state)]);
  return result.rows[0]?.bytes ?? 0;
}

/** One committed step that appends a random 1 KB item (a base64 string: incompressible). */
async function commitGrowingStep(sessionId: string, step: number): Promise<void> {
  const stepId = `r1:${step}`;
  const value = { step, data: randomBytes((ITEM_BYTES * 3) / 4).toString('base64') };
  await store.stageChanges(sessionId, { stepId, stagingKey: 'tool', patches: [{ op: 'add', path: '/items/-', value }] });
  await store.saveStateAndPromoteStaging(sessionId, { stepCount: step }, [], { checkpointId: stepId, runId: 'r1', stepCount: step });
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const sum = (rows: readonly RowStats[]) => rows.reduce((total, row) => total + row.row_bytes, 0);

describe('PostgresStateStore checkpoints as deltas', () => {
  it(`storage is O(n): ${STEPS} steps each adding a 1 KB item store ~1 item per step, not the whole state`, async () => {
    const sessionId = 'growing';
    await store.createSession(sessionId, { agentType: 'a', customState: { items: [] } });
    const sizes: number[] = [];
    const millis: number[] = [];
    for (let step = 1; step <= STEPS; step += 1) {
      const started = performance.now();
      await commitGrowingStep(sessionId, step);
      millis.push(performance.now() - started);
      sizes.push(await stateBytes(sessionId));
    }
    const rows = await rowsOf(sessionId);
    expect(rows).toHaveLength(STEPS);
    const early = sum(rows.slice(0, 20));
    const late = sum(rows.slice(-20));
    const total = sum(rows);
    const fullCopies = sizes.reduce((all, size) => all + size, 0);
    const perStep = total / STEPS;
    console.info(
      `[checkpoint deltas] ${STEPS} steps x ${ITEM_BYTES} B item: ${(total / 1024).toFixed(0)} KiB stored, ${(perStep / 1024).toFixed(2)} KiB/step, ` +
        `steps 1-20 ${(early / 20 / 1024).toFixed(2)} KiB/step, steps ${STEPS - 19}-${STEPS} ${(late / 20 / 1024).toFixed(2)} KiB/step (ratio ${(late / early).toFixed(2)}), ` +
        `first ${STEPS / 2} steps ${(sum(rows.slice(0, STEPS / 2)) / 1024).toFixed(0)} KiB; snapshots ${rows.filter((row) => row.snapshot).length}; ` +
        `full copies would take ${(fullCopies / 1024 / 1024).toFixed(1)} MiB; stage+commit ms/step early ${median(millis.slice(0, 20)).toFixed(1)}, late ${median(millis.slice(-20)).toFixed(1)}`,
    );
    // Linear: the last 20 steps cost about what the first 20 did, and doubling the steps doubles the bytes.
    expect(late / early).toBeLessThan(1.5);
    expect(total / sum(rows.slice(0, STEPS / 2))).toBeLessThan(2.5);
    // Within ~2 KiB per step beyond the item itself (amortised snapshots included).
    expect(perStep).toBeLessThan(ITEM_BYTES + 2048);
    expect(total).toBeLessThan(fullCopies / 20);
    // Reads are bounded: every delta's chain back to its snapshot holds fewer than twice the bytes of the state it rebuilds.
    rows.forEach((row, index) => {
      if (!row.snapshot) expect(Number(row.chain_bytes)).toBeLessThan(SNAPSHOT_CHAIN_RATIO * (sizes[index] as number));
    });
    // Its deltas are its content: after the first checkpoint, the chain never reaches twice the state (no more snapshots).
    expect(rows.filter((row) => row.snapshot).map((row) => row.checkpoint_id)).toEqual(['r1:1']);
    const last = await store.getLatestCheckpoint(sessionId);
    expect((last?.customState as { items: unknown[] }).items).toHaveLength(STEPS);
    expect(last?.customState).toEqual((await store.loadState(sessionId))?.customState);
    const middle = await store.getCheckpoint(sessionId, 'r1:123');
    expect((middle?.customState as { items: { step: number }[] }).items.map((item) => item.step)).toEqual(Array.from({ length: 123 }, (_, index) => index + 1));
  });

  it('writes a snapshot when customState changed by something other than the step patches, an empty delta for an unchanged state', async () => {
    const sessionId = 'policy';
    await store.createSession(sessionId, { agentType: 'a', customState: { items: [], blob: 'x'.repeat(4000) } });
    for (let step = 1; step <= 3; step += 1) await commitGrowingStep(sessionId, step);
    await store.saveState(sessionId, { customState: { items: [], blob: 'y'.repeat(4000) } });
    await commitGrowingStep(sessionId, 4);
    await store.createCheckpoint(sessionId, { checkpointId: 'manual', runId: 'r1', stepCount: 4 });
    await commitGrowingStep(sessionId, 5);
    await store.saveStateAndPromoteStaging(sessionId, { customState: { items: ['replaced'], blob: '' } }, [], { checkpointId: 'r1:6', runId: 'r1', stepCount: 6 });
    expect((await rowsOf(sessionId)).map((row) => [row.checkpoint_id, row.snapshot])).toEqual([
      ['r1:1', true],
      ['r1:2', false],
      ['r1:3', false],
      ['r1:4', true],
      ['manual', false],
      ['r1:5', false],
      ['r1:6', true],
    ]);
    const manual = await store.getCheckpoint(sessionId, 'manual');
    expect(manual?.customState).toMatchObject({ blob: 'y'.repeat(4000) });
    expect((manual?.customState as { items: unknown[] }).items).toHaveLength(1);
    expect((await store.getCheckpoint(sessionId, 'r1:3'))?.customState).toMatchObject({ blob: 'x'.repeat(4000) });
    expect((await store.getLatestCheckpoint(sessionId))?.customState).toEqual({ items: ['replaced'], blob: '' });
  });

  it('rows written before migration 006 read back; an old snapshot equal to the session state is a delta base', async () => {
    const legacy = new PostgresStateStore({ connectionString: database.url }, { schema: 'legacy' });
    try {
      await migrateBefore(admin, 'legacy', '006');
      const before = { items: ['before'], pad: 'p'.repeat(2000) };
      await legacy.createSession('old', { agentType: 'a', customState: before });
      await admin.query(
        `INSERT INTO legacy.__agents_checkpoints (session_id, checkpoint_id, run_id, step_count, message_count, custom_state, created_at)
         VALUES ('old', 'r0:1', 'r0', 1, 0, $1, 1)`,
        [JSON.stringify(before)],
      );
      await admin.query(`UPDATE legacy.__agents_sessions SET checkpoint_id = 'r0:1' WHERE session_id = 'old'`);
      expect((await legacy.migrate()).applied[0]).toBe('006_checkpoint_deltas.sql'); // and every later migration
      await legacy.stageChanges('old', { stepId: 'r1:2', stagingKey: 't', patches: [{ op: 'add', path: '/items/-', value: 'after' }] });
      await legacy.saveStateAndPromoteStaging('old', { stepCount: 2 }, [], { checkpointId: 'r1:2', runId: 'r1', stepCount: 2 });
      await legacy.stageChanges('old', { stepId: 'r1:3', stagingKey: 't', patches: [{ op: 'add', path: '/items/-', value: 'later' }] });
      await legacy.saveStateAndPromoteStaging('old', { stepCount: 3 }, [], { checkpointId: 'r1:3', runId: 'r1', stepCount: 3 });
      expect((await rowsOf('old', 'legacy')).map((row) => row.snapshot)).toEqual([true, false, false]);
      expect((await legacy.listCheckpoints('old')).map((checkpoint) => checkpoint.customState)).toEqual([
        before,
        { ...before, items: ['before', 'after'] },
        { ...before, items: ['before', 'after', 'later'] },
      ]);
      const branch = await legacy.cloneSession('old', 'old-branch', { checkpointId: 'r0:1' });
      expect(branch.customState).toEqual(before);
    } finally {
      await legacy.close();
    }
  });

  it('a delta cannot outlive its base, a damaged delta is a StoreError, deleting the session removes the whole chain', async () => {
    const sessionId = 'delete-chain';
    await store.createSession(sessionId, { agentType: 'a', customState: { items: [], pad: 'p'.repeat(3000) } });
    for (let step = 1; step <= 4; step += 1) await commitGrowingStep(sessionId, step);
    expect((await rowsOf(sessionId)).map((row) => row.snapshot)).toEqual([true, false, false, false]);
    await admin.query(`UPDATE __agents_checkpoints SET patches = '[{"op": "remove", "path": "/missing"}]' WHERE session_id = $1 AND checkpoint_id = 'r1:3'`, [sessionId]);
    await expect(store.getCheckpoint(sessionId, 'r1:4')).rejects.toMatchObject({ code: 'STORE_ERROR', data: { checkpointId: 'r1:3' } });
    expect((await store.getCheckpoint(sessionId, 'r1:2'))?.customState).toMatchObject({ items: [{ step: 1 }, { step: 2 }] });
    await expect(admin.query(`DELETE FROM __agents_checkpoints WHERE session_id = $1 AND checkpoint_id = 'r1:1'`, [sessionId])).rejects.toMatchObject({ code: '23503' });
    await store.deleteSession(sessionId);
    expect(await rowsOf(sessionId)).toEqual([]);
  });

  it('a step checkpoint (id `${runId}:${stepCount}`) stores no run_id and reads its run from the id; any other id keeps it', async () => {
    const sessionId = 'run-implied';
    await store.createSession(sessionId, { agentType: 'a', customState: { n: 1 } });
    await store.saveStateAndPromoteStaging(sessionId, { stepCount: 12 }, [], { checkpointId: 'run-a:b:12', runId: 'run-a:b', stepCount: 12 });
    await store.createCheckpoint(sessionId, { checkpointId: 'saved-by-hand', runId: 'run-a:b', stepCount: 12 });
    await store.createCheckpoint(sessionId, { checkpointId: 'run-a:b:7', runId: 'run-a:b', stepCount: 12 });
    const stored = await admin.query<{ checkpoint_id: string; run_id: string | null }>(
      'SELECT checkpoint_id, run_id FROM __agents_checkpoints WHERE session_id = $1 ORDER BY position',
      [sessionId],
    );
    expect(stored.rows).toEqual([
      { checkpoint_id: 'run-a:b:12', run_id: null },
      { checkpoint_id: 'saved-by-hand', run_id: 'run-a:b' },
      { checkpoint_id: 'run-a:b:7', run_id: 'run-a:b' },
    ]);
    expect((await store.listCheckpoints(sessionId)).map(({ id, runId, stepCount }) => ({ id, runId, stepCount }))).toEqual([
      { id: 'run-a:b:12', runId: 'run-a:b', stepCount: 12 },
      { id: 'saved-by-hand', runId: 'run-a:b', stepCount: 12 },
      { id: 'run-a:b:7', runId: 'run-a:b', stepCount: 12 },
    ]);
    expect(await store.getCheckpoint(sessionId, 'run-a:b:12')).toMatchObject({ runId: 'run-a:b', stepCount: 12, customState: { n: 1 } });
    await store.createCheckpoint(sessionId, { checkpointId: 'run-c:3', runId: 'run-c', stepCount: 3 });
    expect(await store.getLatestCheckpoint(sessionId)).toMatchObject({ id: 'run-c:3', runId: 'run-c', stepCount: 3 });
  });
});
