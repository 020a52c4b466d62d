import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';
import { hintCounter } from '../../../src/testing/contracts/stream-manager-contract/end-hints.js';
import { expectEndAndFailureHinted } from './end-hint-scenario.js';

// Issue 22 (fleet): the handle of a queued run learns that the run ended from its stream's end, written by the worker
// process (a NOTIFY every stream manager on the database hears), instead of asking DBOS every 2 ms.

let database: TestDatabase;
let worker: PostgresStreamManager;
let api: PostgresStreamManager;

beforeAll(async () => {
  database = await createTestDatabase('stream_end_hint');
  worker = new PostgresStreamManager({ connectionString: database.url }, { flushIntervalMs: 60_000 });
  await worker.migrate();
  api = new PostgresStreamManager({ connectionString: database.url });
});

afterAll(async () => {
  await Promise.all([worker?.close(), api?.close()]);
  await database?.drop();
});

/** Subscribe to `streamId`'s end on the API's manager; counts the hints, and waits for the next one. */
function endHints(streamId: string): ReturnType<typeof hintCounter> & { stop: () => void } {
  const hints = hintCounter();
  return { ...hints, stop: api.onStreamEnd(streamId, hints.listener) };
}

/** Wait until the API manager's LISTEN connection is up (the first subscribe opens it). */
async function listening(): Promise<void> {
  for (let attempt = 0; attempt < 200 && api.listenerProcessId === undefined; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(api.listenerProcessId).toBeDefined();
}

describe('PostgresStreamManager.onStreamEnd', () => {
  it("hints another manager of a stream's end and of its failure, not of its chunks", async () => {
    const hints = endHints('hinted');
    const other = endHints('other');
    await listening();
    // The LISTEN connection's (re)connection wakes every subscriber once (something may have been missed meanwhile).
    await expectEndAndFailureHinted(worker, 'hinted', hints, other);
    hints.stop();
    other.stop();
  });

  it('stops hinting after the unsubscribe, and refuses a malformed stream id at once', async () => {
    const hints = endHints('unsubscribed');
    await listening();
    const before = hints.count();
    hints.stop();
    await worker.endStream('unsubscribed');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(hints.count()).toBe(before);
    expect(() => api.onStreamEnd('', () => undefined)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
