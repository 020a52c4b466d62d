import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { withSessionTimeouts } from '../../examples/demo/app-config.js';
import type { BenchSystem } from './bench-system.js';
import { naiveLoopContext, NaiveLoopWorkflows } from './naive-loop.workflow.js';

/**
 * The naive DBOS loop: a workflow of three bare `@DBOS.step`s per agent step (model stub, no-op tool,
 * append the step's messages to `naive_messages`), DBOS's system tables and the message table on one
 * database. Launches DBOS; `close()` shuts it down.
 *
 * @example
 * const system = await openNaiveDbosSystem(url);
 */
export async function openNaiveDbosSystem(databaseUrl: string): Promise<BenchSystem> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  await pool.query('CREATE TABLE IF NOT EXISTS naive_messages (session_id text NOT NULL, step integer NOT NULL, messages jsonb NOT NULL, PRIMARY KEY (session_id, step))');
  naiveLoopContext.pool = pool;
  DBOS.setConfig({ name: 'helix-agents-bench', systemDatabaseUrl: withSessionTimeouts(databaseUrl), applicationVersion: 'bench', logLevel: 'warn' });
  await DBOS.launch();
  return {
    runSession: async (sessionId, steps, clock) => {
      naiveLoopContext.clock = clock;
      naiveLoopContext.toolCalls = 0;
      // DBOS needs the registered (decorated) static method itself, not a wrapper.
      // eslint-disable-next-line @typescript-eslint/unbound-method
      const handle = await DBOS.startWorkflow(NaiveLoopWorkflows.run, { workflowID: sessionId })(sessionId, steps);
      const calls = await handle.getResult();
      if (calls !== steps + 1) throw new Error(`Session ${sessionId} made ${calls} model calls instead of ${steps + 1}.`);
      return naiveLoopContext.toolCalls;
    },
    close: async () => {
      await DBOS.shutdown();
      await pool.end();
    },
  };
}
