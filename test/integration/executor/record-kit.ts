import { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import pg from 'pg';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import type { SystemDatabase } from '../../../src/journal/fused/record-row.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

/** A launched runtime, DBOS's system database, a plain client on it, and an ended workflow to record steps for. */
export interface RecordKit {
  runtime: TestRuntime;
  database: SystemDatabase;
  client: pg.Client;
  workflowID: string;
  close(): Promise<void>;
}

/** Launch DBOS on a fresh database and insert workflow `workflowID` (ended: no owner to check against). */
export async function startRecordKit(prefix: string, workflowID: string): Promise<RecordKit> {
  const runtime = await startTestRuntime(prefix, new MockLLMAdapter(() => ({ type: 'text', text: 'unused' })));
  const database = DBOSExecutor.globalInstance!.systemDatabase;
  const client = new pg.Client({ connectionString: runtime.database.url });
  await client.connect();
  await client.query(`INSERT INTO "${database.schemaName}".workflow_status (workflow_uuid, status, name, created_at, updated_at) VALUES ($1, 'SUCCESS', 'test', 0, 0)`, [workflowID]);
  return {
    runtime,
    database,
    client,
    workflowID,
    close: async () => {
      await client.end();
      await runtime.shutdown();
    },
  };
}
