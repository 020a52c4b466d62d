import { everyItem, guardArguments, idArgument, objectFields, optionalIdArgument, type MethodArgumentRules } from './argument-guard.js';
import type { SessionStateStore } from './state-store.js';
import type { StateStoreStepRecords } from './step-records.js';

const sessionId = idArgument('sessionId');
const linkedIds = {
  streamId: optionalIdArgument('streamId'),
  parentSessionId: optionalIdArgument('parentSessionId'),
  rootSessionId: optionalIdArgument('rootSessionId'),
};
const stateWrite = objectFields({ ...linkedIds, checkpointId: optionalIdArgument('checkpointId'), suspendedStepId: optionalIdArgument('suspendedStepId') });
const messages = everyItem(objectFields({ id: optionalIdArgument('messageId') }));
const checkpointMeta = objectFields({ checkpointId: idArgument('checkpointId'), runId: idArgument('runId') });
const optionalStepId = optionalIdArgument('stepId');

/**
 * The id arguments of the `SessionStateStore` methods that take more than a session id first (the default of
 * {@link guardStateStoreArguments}), or none. Ids follow `assertStoredId`.
 *
 * @example
 * STATE_STORE_ARGUMENTS.getRun; // [sessionId, runId]
 */
export const STATE_STORE_ARGUMENTS = {
  listFinishedSessions: [],
  countSessionsAwaitingHumans: [],
  runsWaitingOrAborted: [everyItem(objectFields({ sessionId: idArgument('sessionId'), runId: idArgument('runId') }))],
  listSessions: [],
  close: [],
  createSession: [sessionId, objectFields(linkedIds)],
  cloneSession: [idArgument('sourceSessionId'), idArgument('targetSessionId'), objectFields({ checkpointId: optionalIdArgument('checkpointId') })],
  saveState: [sessionId, stateWrite],
  saveStateAndPromoteStaging: [sessionId, stateWrite, messages, checkpointMeta, objectFields({ stepId: optionalStepId })],
  appendMessages: [sessionId, messages],
  createRun: [sessionId, objectFields({ runId: idArgument('runId'), previousRunId: optionalIdArgument('previousRunId') })],
  updateRunStatus: [sessionId, idArgument('runId')],
  getRun: [sessionId, idArgument('runId')],
  createCheckpoint: [sessionId, checkpointMeta],
  getCheckpoint: [sessionId, idArgument('checkpointId')],
  addSubSessionRefs: [sessionId, everyItem(objectFields({ subSessionId: idArgument('subSessionId') }))],
  updateSubSessionRef: [sessionId, idArgument('subSessionId')],
  stageChanges: [sessionId, objectFields({ stepId: idArgument('stepId') })],
  getStagedChanges: [sessionId, optionalStepId],
  promoteStaging: [sessionId, idArgument('stepId')],
  discardStaging: [sessionId, optionalStepId],
  hasStagedChanges: [sessionId, optionalStepId],
  cleanupOrphanedStaging: [sessionId, optionalIdArgument('keepStepId')],
} as const satisfies Partial<Record<keyof SessionStateStore, MethodArgumentRules>>;

/**
 * Validate ids at the public boundary of a `SessionStateStore` implementation, the same rules for every store: each
 * method's first argument is a session id unless {@link STATE_STORE_ARGUMENTS} (or `extra`, for the
 * implementation's own methods) says otherwise. A bad id rejects with InvalidArgumentError (`INVALID_ARGUMENT`)
 * before anything is read or written. Call it once, after the class.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` from the guarded methods.
 * @example
 * guardStateStoreArguments(InMemoryStateStore);
 */
export function guardStateStoreArguments(
  target: abstract new (...args: never[]) => SessionStateStore,
  extra: Readonly<Record<string, MethodArgumentRules>> = {},
): void {
  guardArguments(target, { ...STATE_STORE_ARGUMENTS, ...extra }, [sessionId]);
}

/**
 * The id arguments of every `StateStoreStepRecords` member (a member added later must say what it checks): the step
 * commit's after the connection it joins, as `saveStateAndPromoteStaging`'s; none for the fingerprint and schema.
 *
 * @example
 * STATE_STORE_STEP_RECORD_ARGUMENTS.commitStepOn; // [undefined, sessionId, …]
 */
export const STATE_STORE_STEP_RECORD_ARGUMENTS = {
  databaseFingerprint: [],
  schema: [],
  loadStateForStep: [sessionId],
  loadStateForStart: [sessionId],
  commitStepOn: [undefined, ...STATE_STORE_ARGUMENTS.saveStateAndPromoteStaging],
  saveStateOn: [undefined, ...STATE_STORE_ARGUMENTS.saveState],
  appendMessagesOn: [undefined, ...STATE_STORE_ARGUMENTS.appendMessages],
  transaction: [],
  withConnection: [],
  createSessionOn: [undefined, ...STATE_STORE_ARGUMENTS.createSession],
  compareAndSetStatusOn: [undefined, sessionId],
  clearInterruptFlagOn: [undefined, sessionId],
  createRunOn: [undefined, ...STATE_STORE_ARGUMENTS.createRun],
  updateRunStatusOn: [undefined, ...STATE_STORE_ARGUMENTS.updateRunStatus],
} as const satisfies Record<keyof StateStoreStepRecords, MethodArgumentRules>;

/**
 * Validate ids at the boundary of a `StateStoreStepRecords` implementation with the state store's rules
 * ({@link STATE_STORE_STEP_RECORD_ARGUMENTS}): a bad id rejects with InvalidArgumentError (`INVALID_ARGUMENT`) before
 * the caller's connection is used. Call it once, after the class.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` from the guarded methods.
 * @example
 * guardStateStoreStepRecordArguments(PostgresStateStoreStepRecords);
 */
export function guardStateStoreStepRecordArguments(target: abstract new (...args: never[]) => StateStoreStepRecords): void {
  guardArguments(target, STATE_STORE_STEP_RECORD_ARGUMENTS, [sessionId]);
}
