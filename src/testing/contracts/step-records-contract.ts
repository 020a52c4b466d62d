import { afterAll, beforeAll, describe, it } from 'vitest';
import { InternalError } from '../../errors/index.js';
import type { StepRecordsContractCheck } from './step-records-contract/check.js';
import { fingerprintChecks } from './step-records-contract/fingerprint.js';
import { pipelinedStartChecks } from './step-records-contract/pipelined-start.js';
import { stateStoreChecks } from './step-records-contract/state-store.js';
import { streamManagerChecks } from './step-records-contract/stream-manager.js';
import type { StepRecordsContractFactory, StepRecordsContractSubject } from './step-records-contract/subject.js';
import { usageStoreChecks } from './step-records-contract/usage-store.js';

export type { StepRecordsContractCheck } from './step-records-contract/check.js';
export type {
  StepRecordsContractComponents,
  StepRecordsContractConnection,
  StepRecordsContractFactory,
  StepRecordsContractSubject,
} from './step-records-contract/subject.js';

/**
 * Every check of the step records contract (see {@link describeStepRecordsContract}), to run against a subject
 * directly: a check rejects when the subject breaks the contract.
 *
 * @example
 * for (const check of stepRecordsContractChecks()) await check.run(subject);
 */
export function stepRecordsContractChecks(): StepRecordsContractCheck[] {
  return [...fingerprintChecks(), ...stateStoreChecks(), ...pipelinedStartChecks(), ...streamManagerChecks(), ...usageStoreChecks()];
}

function applies(check: StepRecordsContractCheck, subject: StepRecordsContractSubject): boolean {
  if (check.component === 'any') return true;
  return subject.components[check.component]?.stepRecords !== undefined;
}

/**
 * Register the step records contract suite (vitest): what a component declaring `stepRecords` (the fused journal's
 * step record capability of `SessionStateStore`, `StreamManager` and `UsageStore`) must do. Its
 * `databaseFingerprint` is stable, names the database of the caller's connection (so components on one database
 * agree) and differs on another database; writes made through it on a caller's connection leave nothing after
 * ROLLBACK, are visible once after COMMIT (not before) and change nothing when repeated — the state store's step
 * commit, the stream manager's handed-over chunks (also handed back when abandoned), the usage store's records;
 * `loadStateForStep` returns what `loadState` returns; ids are refused as by the component's own methods. Checks of
 * a component that declares no `stepRecords` are skipped. Every check uses fresh ids, so one subject serves the suite.
 *
 * @example
 * describeStepRecordsContract('Postgres components', async () => ({
 *   components: { stateStore, streamManager, usageStore },
 *   elsewhere: { stateStore: storeOnAnotherDatabase },
 *   connect: () => pool.connect(),
 *   cleanup: () => closeAll(),
 * }));
 */
export function describeStepRecordsContract(name: string, factory: StepRecordsContractFactory): void {
  describe(`Step records contract: ${name}`, () => {
    let subject: StepRecordsContractSubject | undefined;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.cleanup?.();
    });
    for (const check of stepRecordsContractChecks()) {
      it(check.name, async (context) => {
        if (subject === undefined) throw new InternalError('The step records contract factory has not run (or failed).');
        if (!applies(check, subject)) return context.skip(`${check.component} declares no stepRecords`);
        await check.run(subject);
      });
    }
  });
}
