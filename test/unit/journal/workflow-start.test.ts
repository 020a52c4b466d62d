/**
 * DBOS's start of a workflow joined to a caller's transaction (`startJoinedOn`): DBOS's `initWorkflowStatus` for that
 * workflow runs inside the transaction, on its connection (the input row's insert sent ahead when the connection
 * takes statements sent ahead); any other start is DBOS's own; a transaction that refused its writes starts nothing;
 * a workflow id another start holds commits nothing.
 */
import { describe, expect, it } from 'vitest';
import { startJoinedOn } from '../../../src/journal/fused/workflow-start.js';
import type { SystemDatabase } from '../../../src/journal/fused/record-row.js';
import type { StepRecordConnection } from '../../../src/types/step-records.js';

type Init = SystemDatabase['initWorkflowStatus'];

/** A system database whose start runs DBOS's two statements on the client it is given, or logs a start of its own. */
function loggingDatabase(shouldExecute = true) {
  const log: string[] = [];
  const initWorkflowStatus: Init = async (status, creatorXid, client) => {
    if (client === undefined) {
      log.push(`own start ${status.workflowUUID}`);
      return { status: 'PENDING', shouldExecuteOnThisExecutor: true, serialization: null };
    }
    await client.query('INSERT INTO "dbos".workflow_status (workflow_uuid) VALUES ($1)', [status.workflowUUID]);
    await client.query('INSERT INTO "dbos".workflow_input (workflow_uuid, inputs) VALUES ($1, $2)', [status.workflowUUID, '[]']);
    return { status: 'PENDING', shouldExecuteOnThisExecutor: shouldExecute, serialization: null };
  };
  const database = { schemaName: 'dbos', initWorkflowStatus } as unknown as SystemDatabase;
  const start = (workflowUUID: string) => async () => {
    await database.initWorkflowStatus({ workflowUUID } as Parameters<Init>[0], 'x1');
    return `handle ${workflowUUID}`;
  };
  return { database, log, start };
}

/** A transaction's connection that logs what it runs and what it sends ahead (`ahead`: it takes statements sent ahead). */
function connection(log: string[], ahead: boolean): StepRecordConnection {
  const first = (text: string) => text.split(' (')[0];
  const query = async (text: string) => (log.push(`query ${first(text)}`), { rows: [{}], rowCount: 1 });
  const sendAhead = async (text: string) => void log.push(`ahead ${first(text)}`);
  return (ahead ? { query, sendAhead } : { query }) as unknown as StepRecordConnection;
}

describe("DBOS's start joined to a transaction", () => {
  it.each([
    { ahead: true, runs: ['query INSERT INTO "dbos".workflow_status', 'ahead INSERT INTO "dbos".workflow_input'] },
    { ahead: false, runs: ['query INSERT INTO "dbos".workflow_status', 'query INSERT INTO "dbos".workflow_input'] },
  ])('runs inside it, on its connection (sent ahead: $ahead)', async ({ ahead, runs }) => {
    const { database, log, start } = loggingDatabase();
    const started = await startJoinedOn(database, 'w1', start('w1'), async (init) => {
      log.push('writes');
      await init(connection(log, ahead));
      log.push('commit');
      return 'recorded';
    });
    expect(started).toEqual({ handle: 'handle w1', value: 'recorded' });
    expect(log).toEqual(['writes', ...runs, 'commit']);
  });

  it('leaves any other start to DBOS, and is taken once', async () => {
    const { database, log, start } = loggingDatabase();
    // DBOS started another workflow than the joined one: the joined start was never recorded.
    await expect(startJoinedOn(database, 'w1', start('w2'), async () => 'never')).rejects.toThrow('without recording its start');
    await start('w1')();
    expect(log).toEqual(['own start w2', 'own start w1']);
  });

  it('starts nothing when the transaction refused its writes', async () => {
    const { database, log, start } = loggingDatabase();
    expect(await startJoinedOn(database, 'w1', start('w1'), async () => undefined)).toEqual({});
    expect(log).toEqual([]);
  });

  it('commits nothing for a workflow id another start holds', async () => {
    const { database, log, start } = loggingDatabase(false);
    const joined = startJoinedOn(database, 'w1', start('w1'), async (init) => {
      await init(connection(log, true));
      log.push('commit');
      return 'recorded';
    });
    await expect(joined).rejects.toThrow('found its workflow started already');
    expect(log).not.toContain('commit');
  });
});
