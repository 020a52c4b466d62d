/**
 * What DBOS's outcome writes do once a step recorded its workflow's end (`endRecorded`): the execution that recorded
 * it writes nothing more; another workflow, another execution of it, or a failure after it write as DBOS does; an
 * output other than the recorded one (never, by construction) is corrected to DBOS's.
 */
import { describe, expect, it } from 'vitest';
import { endRecorded } from '../../../src/journal/fused/workflow-end.js';
import type { SystemDatabase } from '../../../src/journal/fused/record-row.js';

/** A system database whose outcome writes and queries are only logged (the unit under test wraps them). */
function loggingDatabase() {
  const log: string[] = [];
  const database = {
    schemaName: 'dbos',
    pool: { query: async (text: string, values: unknown[]) => void log.push(`query ${text.split(' ')[0]} ${JSON.stringify(values)}`) },
    recordWorkflowOutput: async (workflowID: string) => (log.push(`output ${workflowID}`), true),
    recordWorkflowError: async (workflowID: string) => (log.push(`error ${workflowID}`), true),
  };
  return { database: database as unknown as SystemDatabase, log };
}

const status = (output: string) => ({ output }) as Parameters<SystemDatabase['recordWorkflowOutput']>[1];

describe('a workflow end recorded with its step', () => {
  it.each([
    { case: 'the recording execution, same output', workflow: 'w1', owner: 'x1', output: '"r"', log: [] },
    { case: 'another workflow', workflow: 'w2', owner: 'x1', output: '"r"', log: ['output w2'] },
    { case: 'another execution of it', workflow: 'w1', owner: 'x2', output: '"r"', log: ['output w1'] },
    { case: 'another output', workflow: 'w1', owner: 'x1', output: '"s"', log: ['query UPDATE ["w1","\\"s\\""]'] },
  ])('$case: DBOS writes $log', async ({ workflow, owner, output, log: expected }) => {
    const { database, log } = loggingDatabase();
    endRecorded(database, 'w1', 'x1', '"r"');
    expect(await database.recordWorkflowOutput(workflow, status(output), owner)).toBe(true);
    expect(log).toEqual(expected);
  });

  it('is taken once: a second outcome write of the workflow is DBOS’s own', async () => {
    const { database, log } = loggingDatabase();
    endRecorded(database, 'w1', 'x1', '"r"');
    await database.recordWorkflowOutput('w1', status('"r"'), 'x1');
    await database.recordWorkflowOutput('w1', status('"r"'), 'x1');
    expect(log).toEqual(['output w1']);
  });

  it('is forgotten by a failure recorded after it (DBOS then adopts the recorded end)', async () => {
    const { database, log } = loggingDatabase();
    endRecorded(database, 'w1', 'x1', '"r"');
    await database.recordWorkflowError('w1', status('"r"'), 'x1');
    await database.recordWorkflowOutput('w1', status('"r"'), 'x1');
    expect(log).toEqual(['error w1', 'output w1']);
  });

  it('wraps a database once, however many ends it records', async () => {
    const { database, log } = loggingDatabase();
    endRecorded(database, 'w1', 'x1', '"r"');
    endRecorded(database, 'w2', 'x1', '"r"');
    await database.recordWorkflowOutput('w3', status('"r"'), 'x1');
    expect(log).toEqual(['output w3']);
  });
});
