import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartWriteOptions, StateStoreStepRecords } from '../../../src/store/index.js';
import type { StreamManagerStepRecords } from '../../../src/stream/index.js';
import { stepRecordsContractChecks, type StepRecordsContractCheck, type StepRecordsContractSubject } from '../../../src/testing/contracts/index.js';
import type { SessionState } from '../../../src/types/session.js';
import type { StepRecordConnection } from '../../../src/types/step-records.js';
import type { UsageStoreStepRecords } from '../../../src/usage/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';
import { postgresStepRecordsSubject } from './postgres-subject.js';

// The step records contract can fail: each deliberately broken `stepRecords` below (a working Postgres component
// with one member broken) is rejected by the check that covers what it breaks, and the unbroken subject passes.
let database: TestDatabase;
let elsewhere: TestDatabase;
let subject: StepRecordsContractSubject;
beforeAll(async () => {
  database = await createTestDatabase('step_records_broken');
  elsewhere = await createTestDatabase('step_records_broken_elsewhere');
  subject = await postgresStepRecordsSubject(database.url, elsewhere.url, 'public');
});
afterAll(async () => {
  await subject?.cleanup?.();
  await Promise.all([database?.drop(), elsewhere?.drop()]);
});

/** `component`, its methods bound to it, declaring `stepRecords` instead of its own. */
function withStepRecords<T extends object>(component: T, stepRecords: unknown): T {
  return new Proxy(component, {
    get(target, key) {
      if (key === 'stepRecords') return stepRecords;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The check whose name contains `fragment` (exactly one). */
function check(fragment: string): StepRecordsContractCheck {
  const found = stepRecordsContractChecks().filter((candidate) => candidate.name.includes(fragment));
  expect(found.map((candidate) => candidate.name)).toHaveLength(1);
  return found[0]!;
}

function stateStoreWith(broken: (real: StateStoreStepRecords) => Partial<StateStoreStepRecords>): StepRecordsContractSubject {
  const store = subject.components.stateStore!;
  const real = store.stepRecords!;
  const delegate: StateStoreStepRecords = {
    schema: () => real.schema(),
    databaseFingerprint: () => real.databaseFingerprint(),
    loadStateForStep: (sessionId) => real.loadStateForStep(sessionId),
    commitStepOn: (...args) => real.commitStepOn(...args),
    saveStateOn: (...args) => real.saveStateOn(...args),
    appendMessagesOn: (...args) => real.appendMessagesOn(...args),
    transaction: (body) => real.transaction(body),
    createSessionOn: (...args) => real.createSessionOn(...args),
    compareAndSetStatusOn: (...args) => real.compareAndSetStatusOn(...args),
    clearInterruptFlagOn: (...args) => real.clearInterruptFlagOn(...args),
    createRunOn: (...args) => real.createRunOn(...args),
    updateRunStatusOn: (...args) => real.updateRunStatusOn(...args),
    ...broken(real),
  };
  return { ...subject, components: { ...subject.components, stateStore: withStepRecords(store, delegate) } };
}

/** A message append that, given `option`, stores every message under a fresh id (so no id is ever found stored). */
function idsRenamedWhen(option: keyof StartWriteOptions): StepRecordsContractSubject {
  return stateStoreWith((real) => ({
    appendMessagesOn: (connection, sessionId, messages, options) =>
      real.appendMessagesOn(connection, sessionId, options?.[option] === true ? messages.map((message, index) => ({ ...message, id: `m-${index}` })) : messages, options),
  }));
}

function streamManagerWith(broken: (real: StreamManagerStepRecords) => Partial<StreamManagerStepRecords>): StepRecordsContractSubject {
  const manager = subject.components.streamManager!;
  const real = manager.stepRecords!;
  const delegate: StreamManagerStepRecords = { schema: () => real.schema(), databaseFingerprint: () => real.databaseFingerprint(), handOver: (writer, options) => real.handOver(writer, options),
    openStreamOn: (...args) => real.openStreamOn(...args),
    reactivateStreamOn: (...args) => real.reactivateStreamOn(...args),
    endStreamOn: (...args) => real.endStreamOn(...args),
    ...broken(real),
  };
  return { ...subject, components: { ...subject.components, streamManager: withStepRecords(manager, delegate) } };
}

function usageStoreWith(broken: (real: UsageStoreStepRecords) => Partial<UsageStoreStepRecords>): StepRecordsContractSubject {
  const store = subject.components.usageStore!;
  const real = store.stepRecords!;
  const delegate: UsageStoreStepRecords = { databaseFingerprint: () => real.databaseFingerprint(), recordOn: (connection, records) => real.recordOn(connection, records), ...broken(real) };
  return { ...subject, components: { ...subject.components, usageStore: withStepRecords(store, delegate) } };
}

describe('the step records contract rejects broken implementations', () => {
  it('the unbroken Postgres subject passes every check (the control)', async () => {
    for (const each of stepRecordsContractChecks()) await each.run(subject);
  });

  const stale = new Map<string, SessionState | null>();
  const committed = new Set<string>();
  const recorded = new Set<string>();
  let asked = 0;
  const cases: Array<[string, string, () => StepRecordsContractSubject]> = [
    ['a fingerprint that changes between calls', 'names the database of the caller', () => stateStoreWith((real) => ({ databaseFingerprint: async () => `${await real.databaseFingerprint()}#${(asked += 1)}` }))],
    [
      'the same fingerprint on every database',
      'names another database',
      () => {
        const here = subject.components.stateStore!.stepRecords!;
        const other = subject.elsewhere.stateStore!;
        const sameEverywhere = { ...other.stepRecords, databaseFingerprint: () => here.databaseFingerprint() };
        return { ...subject, elsewhere: { stateStore: withStepRecords(other, sameEverywhere) } };
      },
    ],
    ['a schema that changes between calls', 'names one schema', () => stateStoreWith(() => ({ schema: () => `schema-${randomUUID()}` }))],
    [
      'a step commit that ignores the caller’s transaction (commits on its own)',
      'commitStepOn inside BEGIN … ROLLBACK',
      () =>
        stateStoreWith(() => ({
          commitStepOn: async (_connection, ...args) => {
            const result = await subject.components.stateStore!.saveStateAndPromoteStaging(...args);
            return { ...result, report: result.report! };
          },
        })),
    ],
    [
      'a step commit that is not idempotent by checkpoint id',
      'commitStepOn inside BEGIN … COMMIT',
      () =>
        stateStoreWith((real) => ({
          // A repeat gets a checkpoint id of its own: a second commit instead of none.
          commitStepOn: (connection, sessionId, state, messages, meta, options) => {
            const repeated = committed.has(sessionId);
            committed.add(sessionId);
            const checkpointId = repeated ? `${meta.checkpointId}-again` : meta.checkpointId;
            return real.commitStepOn(connection, sessionId, state, messages, { ...meta, checkpointId }, options);
          },
        })),
    ],
    [
      'loadStateForStep serving a stale copy',
      'loadStateForStep returns what loadState returns',
      () =>
        stateStoreWith((real) => ({
          loadStateForStep: async (sessionId) => {
            if (!stale.has(sessionId)) stale.set(sessionId, await real.loadStateForStep(sessionId));
            return stale.get(sessionId)!;
          },
        })),
    ],
    [
      'a step commit that uses the connection before checking ids',
      'refuses bad ids',
      () =>
        stateStoreWith((real) => ({
          commitStepOn: async (connection, ...args) => {
            await connection.query('SELECT 1');
            return real.commitStepOn(connection, ...args);
          },
        })),
    ],
    [
      'a hand-over that appends on a connection of its own',
      'nothing remains',
      () =>
        streamManagerWith((real) => ({
          // Appends on a connection of its own (autocommit), not the caller's.
          handOver: async (writer) => {
            const handover = await real.handOver(writer);
            if (handover === undefined) return undefined;
            const within = async (): Promise<void> => {
              const own = await subject.connect();
              try {
                await handover.within(own);
              } finally {
                await own.release();
              }
            };
            return { within, abandoned: () => handover.abandoned() };
          },
        })),
    ],
    [
      'a hand-over that drops abandoned chunks',
      'abandoned after a ROLLBACK',
      () =>
        streamManagerWith((real) => ({
          handOver: async (writer) => {
            const handover = await real.handOver(writer);
            return handover === undefined ? undefined : { within: (connection) => handover.within(connection), abandoned: () => undefined };
          },
        })),
    ],
    [
      'a session write that ignores the caller’s transaction (saves on its own)',
      'saveStateOn and updateRunStatusOn',
      () => stateStoreWith(() => ({ saveStateOn: (_connection, sessionId, write) => subject.components.stateStore!.saveState(sessionId, write) })),
    ],
    [
      'a message append that ignores the caller’s transaction (appends on its own)',
      'appendMessagesOn',
      () => stateStoreWith(() => ({ appendMessagesOn: (_connection, sessionId, messages) => subject.components.stateStore!.appendMessages(sessionId, messages) })),
    ],
    ['a first append of a session created in the transaction that stores a repeated id twice', 'sessionCreatedHere', () => idsRenamedWhen('sessionCreatedHere')],
    ['an append in a transaction holding the session row that stores an id the session has again', 'sessionLocked', () => idsRenamedWhen('sessionLocked')],
    [
      'a start transaction that commits what a throwing body wrote',
      'a run’s start',
      () =>
        stateStoreWith((real) => ({
          transaction: async (body) => {
            const outcome = await real.transaction(async (connection) => body(connection).then((value) => ({ value }), (error: unknown) => ({ error })));
            if ('error' in outcome) throw outcome.error;
            return outcome.value;
          },
        })),
    ],
    [
      'a reactivation that leaves this process’s writers refusing',
      'reactivateStreamOn',
      () =>
        streamManagerWith((real) => ({
          reactivateStreamOn: async (connection, streamId) => {
            await real.reactivateStreamOn(connection, streamId);
            return { onCommitted: () => undefined };
          },
        })),
    ],
    [
      'a run update that writes nothing',
      'saveStateOn and updateRunStatusOn',
      () => stateStoreWith(() => ({ updateRunStatusOn: async () => undefined })),
    ],
    [
      'a stream opened on a connection of its own',
      'openStreamOn',
      () =>
        streamManagerWith(() => ({
          openStreamOn: async (_connection, streamId, agentType) => {
            const writer = await subject.components.streamManager!.createWriter(streamId, streamId, agentType);
            await writer.close();
          },
        })),
    ],
    [
      'a stream end that ends the stream on a connection of its own',
      'endStreamOn',
      () => streamManagerWith(() => ({ endStreamOn: async (_connection, streamId, output) => subject.components.streamManager!.endStream(streamId, output).then(() => ({ onCommitted: () => undefined })) })),
    ],
    [
      'a stream end that leaves this process’s writers writing',
      'endStreamOn',
      () =>
        streamManagerWith((real) => ({
          endStreamOn: async (connection, streamId, output) => {
            await real.endStreamOn(connection, streamId, output);
            return { onCommitted: () => undefined };
          },
        })),
    ],
    [
      'a hand-over that stores a tool call’s pair without its tool_start',
      'read back whole, in order, at consecutive sequences',
      () =>
        streamManagerWith((real) => ({
          handOver: async (writer, options) => {
            const handover = await real.handOver(writer, options);
            if (handover === undefined) return undefined;
            const within = async (connection: StepRecordConnection): Promise<void> => {
              await handover.within(connection);
              await connection.query(
                `UPDATE __agents_stream_chunks SET chunk = regexp_replace(chunk, '^[{]"startArguments":[{][^}]*[}],', '{') WHERE starts_with(chunk, '{"startArguments"')`,
              );
            };
            return { within, abandoned: () => handover.abandoned() };
          },
        })),
    ],
    [
      'a connection lent inside a transaction of its own',
      'withConnection (when declared) lends a connection',
      () =>
        stateStoreWith((real) => ({
          withConnection: (body) =>
            real.withConnection!(async (client) => {
              await client.query('BEGIN');
              try {
                return await body(client);
              } finally {
                await client.query('ROLLBACK');
              }
            }),
        })),
    ],
    ['a hand-over that takes any writer', 'refuses a writer the manager did not create', () => streamManagerWith(() => ({ handOver: async (writer) => writer.flush().then(() => undefined) }))],
    ['usage recorded on its own, outside the caller’s transaction', 'recordOn inside BEGIN', () => usageStoreWith(() => ({ recordOn: (_connection, records) => subject.components.usageStore!.record(records) }))],
    [
      'usage recorded under new ids when its transaction runs again (not idempotent by record id)',
      'recordOn inside BEGIN',
      () =>
        usageStoreWith((real) => ({
          // A record id seen before is recorded again under another id.
          recordOn: (connection, records) => {
            const again = records.map((record) => (recorded.has(record.id) ? { ...record, id: `${record.id}-again-${randomUUID()}` } : record));
            for (const record of records) recorded.add(record.id);
            return real.recordOn(connection, again);
          },
        })),
    ],
  ];

  it.each(cases)('%s: rejected by the check “…%s…”', async (_label, fragment, broken) => {
    await expect(check(fragment).run(broken())).rejects.toThrow();
  });
});
