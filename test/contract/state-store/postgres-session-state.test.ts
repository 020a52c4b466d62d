import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../../src/store/index.js';
import type { TestDatabase } from '../../support/services.js';
import { migrateBefore, openStoreDatabase, type StoreDatabase } from '../../support/store-database.js';

let database: TestDatabase;
let admin: pg.Client;
let store: PostgresStateStore;
let opened: StoreDatabase;
beforeAll(async () => {
  opened = await openStoreDatabase('session_state');
  ({ database, admin, store } = opened);
});
afterAll(async () => {
  await opened.close();
});

/** One committed step of `target` that appends a random 1 KB item (incompressible). */
async function commitGrowingStep(target: PostgresStateStore, sessionId: string, step: number, runId = 'r1'): Promise<string> {
  const stepId = `${runId}:${step}`;
  const value = randomBytes(768).toString('base64');
  await target.stageChanges(sessionId, { stepId, stagingKey: 'tool', patches: [{ op: 'add', path: '/items/-', value }] });
  await target.saveStateAndPromoteStaging(sessionId, { stepCount: step }, [], { checkpointId: stepId, runId, stepCount: step });
  return value;
}

async function sessionRow(sessionId: string, schema = 'public'): Promise<{ in_row: boolean; checkpoint_id: string | null }> {
  const result = await admin.query<{ in_row: boolean; checkpoint_id: string | null }>(
    `SELECT custom_state IS NOT NULL AS in_row, checkpoint_id FROM "${schema}".__agents_sessions WHERE session_id = $1`,
    [sessionId],
  );
  return result.rows[0] as { in_row: boolean; checkpoint_id: string | null };
}

async function sessionsTableBytes(): Promise<number> {
  const result = await admin.query<{ bytes: string }>(`SELECT pg_total_relation_size('public.__agents_sessions')::text AS bytes`);
  return Number(result.rows[0]?.bytes);
}

describe('PostgresStateStore: the session state lives in the checkpoint chain', () => {
  it('a step commit does not rewrite a growing state in the session row: the sessions table stays small', async () => {
    const sessionId = 'row-growth';
    await store.createSession(sessionId, { agentType: 'a', customState: { items: [] } });
    const before = await sessionsTableBytes();
    const items: string[] = [];
    for (let step = 1; step <= 120; step += 1) items.push(await commitGrowingStep(store, sessionId, step));
    const grown = (await sessionsTableBytes()) - before;
    // Rewriting the whole state every step would add ~120 x 60 KiB of TOAST here.
    expect(grown).toBeLessThan(256 * 1024);
    expect(await sessionRow(sessionId)).toEqual({ in_row: false, checkpoint_id: 'r1:120' });
    expect((await store.loadState(sessionId))?.customState).toEqual({ items });
    // A write that leaves customState alone keeps it in the checkpoint; one that replaces it stores it in the row.
    await store.updateStatus(sessionId, 'completed');
    expect((await sessionRow(sessionId)).in_row).toBe(false);
    await store.saveState(sessionId, { customState: { items: ['x'] } });
    expect(await sessionRow(sessionId)).toEqual({ in_row: true, checkpoint_id: 'r1:120' });
    expect((await store.loadState(sessionId))?.customState).toEqual({ items: ['x'] });
  });

  it('a locked read that waited for a concurrent commit sees that commit\'s checkpoint', async () => {
    const sessionId = 'lock-wait';
    await store.createSession(sessionId, { agentType: 'a', customState: { items: [] } });
    await commitGrowingStep(store, sessionId, 1);
    // Another writer commits a step by hand while holding the row: a snapshot checkpoint and the pointer.
    await whileRowHeld(sessionId, () => store.saveState(sessionId, { status: 'paused' }), async (other) => {
      await other.query(
        `INSERT INTO __agents_checkpoints (session_id, checkpoint_id, run_id, step_count, message_count, custom_state, created_at, state_hash)
         VALUES ($1, 'r1:2', 'r1', 2, 0, '{"items": ["concurrent"]}', 2, md5('{"items": ["concurrent"]}'))`,
        [sessionId],
      );
      await other.query(`UPDATE __agents_sessions SET checkpoint_id = 'r1:2', custom_state = NULL, version = version + 1 WHERE session_id = $1`, [sessionId]);
    });
    expect(await store.loadState(sessionId)).toMatchObject({ status: 'paused', checkpointId: 'r1:2', customState: { items: ['concurrent'] } });
  });

  it("a step commit whose lock waited for a concurrent commit of the same checkpoint finds it: nothing written twice, no error", async () => {
    const sessionId = 'lock-wait-commit';
    await store.createSession(sessionId, { agentType: 'a', customState: { items: [] } });
    await commitGrowingStep(store, sessionId, 1);
    // A retried commit of step 2 whose first attempt still holds the row: its checkpoint and message land while the
    // retry's statement (and its snapshot) waits for the lock.
    const retry = () => store.saveStateAndPromoteStaging(sessionId, { stepCount: 2 }, [{ id: 'r1:2:0', role: 'assistant', content: 'two' }], { checkpointId: 'r1:2', runId: 'r1', stepCount: 2 });
    await whileRowHeld(sessionId, retry, async (other) => {
      await other.query(
        `INSERT INTO __agents_checkpoints (session_id, checkpoint_id, run_id, step_count, message_count, custom_state, created_at, state_hash)
         VALUES ($1, 'r1:2', 'r1', 2, 1, '{"items": ["first"]}', 2, md5('{"items": ["first"]}'))`,
        [sessionId],
      );
      await other.query(`INSERT INTO __agents_messages (session_id, sequence, message_id, message, created_at) VALUES ($1, 1, 'r1:2:0', '{"role": "assistant", "content": "two"}', 2)`, [sessionId]);
      await other.query(`UPDATE __agents_sessions SET checkpoint_id = 'r1:2', custom_state = NULL, message_count = 1, version = version + 1 WHERE session_id = $1`, [sessionId]);
    });
    expect((await store.listCheckpoints(sessionId)).map((checkpoint) => checkpoint.id)).toEqual(['r1:1', 'r1:2']);
    expect((await store.getMessages(sessionId)).messages.map((message) => message.id)).toEqual(['r1:2:0']);
    expect(await store.loadState(sessionId)).toMatchObject({ checkpointId: 'r1:2', customState: { items: ['first'] } });
  });

  it('a session whose row predates migration 008 reads back, commits on top of its checkpoint and branches', async () => {
    const legacy = new PostgresStateStore({ connectionString: database.url }, { schema: 'legacy_state' });
    try {
      await migrateBefore(admin, 'legacy_state', '008');
      // As the store before 008 left them: the full state in the row, equal to its pointer checkpoint's; and
      // one whose row was rewritten after its last checkpoint.
      const state = { items: ['a', 'b'], pad: 'p'.repeat(3000) };
      const text = JSON.stringify(state);
      for (const sessionId of ['old', 'old-rewritten']) {
        await admin.query(
          `INSERT INTO legacy_state.__agents_sessions (session_id, agent_type, status, custom_state, checkpoint_id, created_at, updated_at)
           VALUES ($1, 'a', 'active', $2, 'r0:1', 1, 1)`,
          [sessionId, sessionId === 'old' ? text : JSON.stringify({ ...state, items: ['rewritten'] })],
        );
        await admin.query(
          `INSERT INTO legacy_state.__agents_checkpoints (session_id, checkpoint_id, run_id, step_count, message_count, custom_state, created_at, state_hash)
           VALUES ($1, 'r0:1', 'r0', 1, 0, $2::jsonb, 1, md5($2::jsonb::text))`,
          [sessionId, text],
        );
      }
      expect((await legacy.migrate()).applied).toEqual(['008_session_state_in_checkpoint.sql', '009_compact_stream_chunks.sql', '010_hashed_message_ids.sql', '011_compact_chunk_text.sql', '012_compact_message_text.sql', '013_pending_step.sql', '014_step_patches_kept.sql', '015_stream_agent_type.sql', '016_model_calls.sql', '017_checkpoint_run_implied.sql']);
      expect((await legacy.loadState('old'))?.customState).toEqual(state);
      expect((await legacy.loadState('old-rewritten'))?.customState).toEqual({ ...state, items: ['rewritten'] });
      const added = await commitGrowingStep(legacy, 'old', 2);
      const addedToRewritten = await commitGrowingStep(legacy, 'old-rewritten', 2);
      const snapshots = await admin.query<{ session_id: string; snapshot: boolean }>(
        `SELECT session_id, custom_state IS NOT NULL AS snapshot FROM legacy_state.__agents_checkpoints WHERE checkpoint_id = 'r1:2' ORDER BY session_id`,
      );
      // The old row equal to its checkpoint is a delta base; the rewritten one is not.
      expect(snapshots.rows).toEqual([
        { session_id: 'old', snapshot: false },
        { session_id: 'old-rewritten', snapshot: true },
      ]);
      expect((await legacy.loadState('old'))?.customState).toEqual({ ...state, items: ['a', 'b', added] });
      expect((await legacy.loadState('old-rewritten'))?.customState).toEqual({ ...state, items: ['rewritten', addedToRewritten] });
      expect(await sessionRow('old', 'legacy_state')).toEqual({ in_row: false, checkpoint_id: 'r1:2' });
      const branch = await legacy.cloneSession('old', 'old-branch', { checkpointId: 'r0:1' });
      expect((await legacy.loadState(branch.sessionId))?.customState).toEqual(state);
    } finally {
      await legacy.close();
    }
  });
});

/**
 * Hold the session row (a second client, `FOR NO KEY UPDATE`), start `storeCall` (its statement takes its snapshot and
 * waits for the lock), then `write` by hand on the holding client and commit; returns once `storeCall` settles.
 */
async function whileRowHeld(sessionId: string, storeCall: () => Promise<unknown>, write: (other: pg.Client) => Promise<void>): Promise<void> {
  const other = new pg.Client({ connectionString: database.url });
  await other.connect();
  try {
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM __agents_sessions WHERE session_id = $1 FOR NO KEY UPDATE', [sessionId]);
    const waiting = storeCall();
    // Let the store's statement start (and take its snapshot) before the other writer commits.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await write(other);
    await other.query('COMMIT');
    await waiting;
  } finally {
    await other.end();
  }
}
