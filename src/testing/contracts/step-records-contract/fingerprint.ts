import { expect } from 'vitest';
import { databaseFingerprint } from '../../../database/database-fingerprint.js';
import type { StepRecordsContractCheck } from './check.js';
import { declaredParticipants, type StepRecordsContractSubject } from './subject.js';

/** The fingerprint of the database the subject's connections reach (what DBOS's pool would answer there). */
async function connectionFingerprint(subject: StepRecordsContractSubject): Promise<string> {
  const connection = await subject.connect();
  try {
    return await databaseFingerprint(connection);
  } finally {
    await connection.release();
  }
}

/**
 * Checks of every declared `databaseFingerprint` and `schema`: stable, equal to the fingerprint of the database the
 * caller's connection reaches (so equal across components on one database), different on another database.
 *
 * @example
 * const checks = fingerprintChecks();
 */
export function fingerprintChecks(): StepRecordsContractCheck[] {
  return [
    {
      component: 'any',
      name: 'every declared databaseFingerprint names the database of the caller’s connection, the same every time',
      run: async (subject) => {
        const declared = declaredParticipants(subject.components);
        expect(declared.map(({ kind }) => kind), 'components declaring stepRecords').not.toEqual([]);
        const expected = await connectionFingerprint(subject);
        for (const { kind, stepRecords } of declared) {
          expect(await stepRecords.databaseFingerprint(), `${kind} fingerprint`).toBe(expected);
          expect(await stepRecords.databaseFingerprint(), `${kind} fingerprint, asked again`).toBe(expected);
        }
      },
    },
    {
      component: 'any',
      name: 'a component on another database names another database',
      run: async (subject) => {
        const elsewhere = declaredParticipants(subject.elsewhere);
        expect(elsewhere.map(({ kind }) => kind), 'components elsewhere declaring stepRecords').not.toEqual([]);
        const here = await connectionFingerprint(subject);
        for (const { kind, stepRecords } of elsewhere) {
          const fingerprint = await stepRecords.databaseFingerprint();
          expect(fingerprint, `${kind} elsewhere`).toEqual(expect.any(String));
          expect(fingerprint, `${kind} elsewhere`).not.toBe(here);
        }
      },
    },
    {
      component: 'any',
      name: 'schema() of a store and a stream manager names one schema, the same every time',
      run: async (subject) => {
        const owners = [subject.components.stateStore?.stepRecords, subject.components.streamManager?.stepRecords];
        for (const owner of owners) {
          if (owner === undefined) continue;
          const schema = owner.schema();
          expect(schema).toEqual(expect.any(String));
          expect(schema.length).toBeGreaterThan(0);
          expect(owner.schema()).toBe(schema);
        }
      },
    },
    {
      component: 'stateStore',
      name: 'stateStore.stepRecords.withConnection (when declared) lends a connection of its database, outside any transaction',
      run: async (subject) => {
        const stepRecords = subject.components.stateStore?.stepRecords;
        if (stepRecords?.withConnection === undefined) return;
        const declared = await stepRecords.databaseFingerprint();
        const lent = await stepRecords.withConnection(async (client) => {
          const outside = await client.query<{ open: boolean }>("SELECT now() <> statement_timestamp() AS open");
          const fingerprint = await databaseFingerprint(client);
          await client.query('BEGIN');
          const inside = await client.query<{ xid: string | null }>('SELECT pg_current_xact_id()::text AS xid');
          await client.query('COMMIT');
          return { open: outside.rows[0]?.open, fingerprint, xid: inside.rows[0]?.xid };
        });
        expect(lent, 'a lent connection: no transaction open, the declared database, one of its own begun there').toEqual({
          open: false,
          fingerprint: declared,
          xid: expect.any(String),
        });
        // A body that fails is the caller's failure (the store may wrap it in its own error).
        await expect(stepRecords.withConnection(() => Promise.reject(new Error('the body failed'))), 'a failing body').rejects.toBeDefined();
      },
    },
  ];
}
