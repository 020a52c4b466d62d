import { DBOSStepNondeterminismError, DBOSWorkflowConflictError } from '@dbos-inc/dbos-sdk/internal/error';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canSendAhead } from '../../../src/database/send-ahead.js';
import { isDeferring } from '../../../src/store/postgres/statement-batch.js';
import { recordStepRow, type StepRecordRow, type SystemDatabase } from '../../../src/journal/fused/record-row.js';
import { recordWithWrites } from '../../../src/journal/fused/record-transaction.js';
import type { RecordWrite } from '../../../src/journal/step-record.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { BufferedStreamWriter } from '../../../src/stream/buffered-stream-writer.js';
import type { TestRuntime } from '../../support/runtime.js';
import { startRecordKit, type RecordKit } from './record-kit.js';

// The step record's transaction (pipelined: BEGIN and statements sent ahead go out with the first statement that is
// read, the record with the COMMIT): whatever refuses the record or fails a check commits none of its writes.
let kit: RecordKit;
let runtime: TestRuntime;
let database: SystemDatabase;
let client: pg.Client;
let workflowID: string;
let functionID = 1_000;

beforeAll(async () => {
  kit = await startRecordKit('step_record_tx', 'step-record-tx-workflow');
  ({ runtime, database, client, workflowID } = kit);
  await client.query('CREATE TABLE record_marker (name text PRIMARY KEY)');
});
afterAll(async () => {
  await kit?.close();
});

const stepOf = (overrides: Partial<StepRecordRow> = {}): StepRecordRow => ({
  workflowID,
  functionID: (functionID += 1),
  name: 'TestStep',
  startedAt: 1,
  endedAt: 2,
  output: '{"json":1,"__dbos_serializer":"superjson"}',
  serialization: 'js_superjson',
  ...overrides,
});
const markers = async (): Promise<string[]> => (await client.query<{ name: string }>('SELECT name FROM record_marker ORDER BY name')).rows.map((row) => row.name);
const recorded = async (step: StepRecordRow): Promise<number> =>
  (await client.query(`SELECT 1 FROM "${database.schemaName}".operation_outputs WHERE workflow_uuid = $1 AND function_id = $2`, [step.workflowID, step.functionID])).rowCount ?? 0;

/** A write sent ahead (its check runs on its answer), then a held batch that rides in the record's statement. */
function markerWrites(name: string, check: (rowCount: number) => void = () => undefined): RecordWrite[] {
  return [
    {
      within: async (connection) => {
        if (!canSendAhead(connection)) throw new Error('the record transaction takes no statements sent ahead');
        await connection.sendAhead('INSERT INTO record_marker (name) VALUES ($1)', [`${name}-ahead`], (result) => check(result.rowCount ?? 0));
      },
    },
    {
      within: async (connection) => {
        if (!isDeferring(connection)) throw new Error('the record transaction holds no writes');
        await connection.deferWrites(['INSERT INTO record_marker (name) VALUES ($1)'], [`${name}-held`]);
      },
    },
  ];
}

describe('the step record transaction (pipelined)', () => {
  it('commits the statements sent ahead, the held writes and the record together', async () => {
    const step = stepOf();
    await recordWithWrites(database, markerWrites('ok'), step);
    expect(await markers()).toEqual(expect.arrayContaining(['ok-ahead', 'ok-held']));
    expect(await recorded(step)).toBe(1);
  });

  it('a statement sent ahead that fails commits nothing (the COMMIT already sent behind it rolls back): no writes, no record', async () => {
    const step = stepOf();
    await client.query(`INSERT INTO record_marker (name) VALUES ('taken')`);
    const refused = new Error('the statement sent ahead failed');
    const writes: RecordWrite[] = [
      {
        within: async (connection) => {
          if (!canSendAhead(connection)) throw new Error('the record transaction takes no statements sent ahead');
          // A unique violation, named by `refused`.
          await connection.sendAhead('INSERT INTO record_marker (name) VALUES ($1)', ['taken'], () => undefined, () => refused);
        },
      },
      markerWrites('failed')[1]!,
    ];
    await expect(recordWithWrites(database, writes, step)).rejects.toBe(refused);
    expect(await markers()).not.toContain('failed-held');
    expect(await recorded(step)).toBe(0);
  });

  it('a record for a workflow that is not ours fails with DBOSWorkflowConflictError; the COMMIT sent behind it rolls back', async () => {
    const step = stepOf({ workflowID: 'step-record-tx-nobody' });
    await expect(recordWithWrites(database, markerWrites('zombie'), step)).rejects.toBeInstanceOf(DBOSWorkflowConflictError);
    expect(await markers()).not.toContain('zombie-ahead');
    expect(await markers()).not.toContain('zombie-held');
    expect(await recorded(step)).toBe(0);
  });

  it('a record whose step already has another completion time fails with DBOSStepNondeterminismError; nothing commits', async () => {
    const first = stepOf({ endedAt: 1_000 });
    await recordStepRow(database.pool, database, first);
    await expect(recordWithWrites(database, markerWrites('replayed'), { ...first, endedAt: 2_000 })).rejects.toBeInstanceOf(DBOSStepNondeterminismError);
    expect(await markers()).not.toContain('replayed-ahead');
    // The same completion time (a lost reply re-sent) is no conflict, and its writes commit.
    await recordWithWrites(database, markerWrites('resent'), first);
    expect(await markers()).toEqual(expect.arrayContaining(['resent-ahead', 'resent-held']));
  });

  it('chunks handed to the record of an ended stream fail it with STREAM_CLOSED and go back to the writer, which knows the stream closed', async () => {
    const streams = new PostgresStreamManager({ connectionString: runtime.database.url }, { flushIntervalMs: 60_000 });
    try {
      const writer = await streams.createWriter('closed-stream', 'agent', 'type');
      expect(writer).toBeInstanceOf(BufferedStreamWriter);
      await writer.write({ type: 'text_delta', delta: 'late', agentId: 'agent', agentType: 'type', step: 1, timestamp: 1 } as never);
      await runtime.streamManager.endStream('closed-stream'); // ended by another process: this writer does not know
      const handover = await streams.stepRecords.handOver(writer);
      expect(handover).toBeDefined();
      const step = stepOf();
      await expect(recordWithWrites(database, [handover!], step)).rejects.toMatchObject({ code: 'STREAM_CLOSED' });
      expect(await recorded(step)).toBe(0);
      // The writer saw the refusal: a write now fails at once instead of buffering for a closed stream.
      await expect(writer.write({ type: 'text_delta', delta: 'later', agentId: 'agent', agentType: 'type', step: 1, timestamp: 2 } as never)).rejects.toMatchObject({ code: 'STREAM_CLOSED' });
    } finally {
      await streams.close();
    }
  });
});
