import type { StepRecordsContractSubject } from './subject.js';

/**
 * One check of the step records contract: `describeStepRecordsContract` registers each as a test, skipped when its
 * component declares no `stepRecords`. `run` rejects when the subject breaks the contract.
 *
 * @example
 * for (const check of stepRecordsContractChecks()) await check.run(subject);
 */
export interface StepRecordsContractCheck {
  /** The component the check is about; `any`: every declared component (never skipped). */
  component: 'stateStore' | 'streamManager' | 'usageStore' | 'any';
  /** What the check proves (its test's name). */
  name: string;
  run(subject: StepRecordsContractSubject): Promise<void>;
}
