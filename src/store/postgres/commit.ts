import { SessionNotFoundError, StaleStateError } from '../../errors/index.js';
import type { Message } from '../../types/message.js';
import type { CheckpointMeta, SaveAndPromoteOptions, SessionStateWrite, StagedChanges } from '../../types/session.js';
import type { StepCommitReport } from '../../types/step-commit-report.js';
import { prepareMessagesForAppend, withMessageIds } from '../message-append.js';
import { buildStepCommit, rowsToApply } from '../step-commit.js';
import { assertCheckpointMeta, assertIdentifier } from '../validation.js';
import { decideCommitCheckpoints, findCommitCheckpoints, insertCheckpointRow, readCommitCheckpointRows } from './checkpoint-chain.js';
import type { PostgresContext, SqlConnection } from './database.js';
import type { StoreTables } from './tables.js';
import { insertPostgresMessages, selectExistingMessageIds } from './messages.js';
import { sessionUpdate } from './session-lock.js';
import type { CommitCache, CommittedSession } from './commit-cache.js';
import { decodeSessionRead, sessionReadSql, type SessionReadRow } from './session-read.js';
import { selectStagedChanges } from './staging.js';
import { isDeferring, SelectBatch, WriteBatch } from './statement-batch.js';
import { mayCommitOptimistically, refusedOptimisticCommit } from './optimistic-commit.js';

/**
 * `saveStateAndPromoteStaging` in one transaction of three statements whatever the history length: lock the
 * session row (reading its state); one read of the checkpoints, staged rows and existing message ids; one write
 * (`SelectBatch`, `WriteBatch`). In order: lock the session row, return early when the checkpoint id exists (idempotent
 * re-commit), check the version (StaleStateError), read the step's staged rows and the ids among the new
 * messages that already exist, compute the next state in JS, then update the session, delete the staged
 * rows, insert the checkpoint (a delta on the previous checkpoint or a snapshot, see `insertCheckpointRow`)
 * and insert the new messages. The session row does not get the new customState (its `custom_state` is
 * NULL: "the state of the checkpoint I point at"), so a step writes its delta once, not the whole state;
 * the lock's statement reads the state back from the checkpoint chain (see `readSession`). Any failure
 * rolls all of it back. The `report` (state after the commit, message count, appended messages, interrupt flag) lets the caller go on without reading the session again. Retry-safe:
 * an attempt whose COMMIT outcome is unknown is followed by one that finds the checkpoint id and returns.
 *
 * @example
 * await commitPostgresStep(context, 's1', { stepCount: 2 }, messages, { checkpointId: 'r1:2', runId: 'r1', stepCount: 2 }, { expectedVersion: 5 });
 */
export async function commitPostgresStep(
  { database, tables }: PostgresContext,
  sessionId: string,
  write: SessionStateWrite,
  appendMessages: Message[],
  meta: CheckpointMeta,
  options: SaveAndPromoteOptions = {},
  cache?: CommitCache,
): Promise<{ newVersion: number; checkpointId: string; report: StepCommitReport }> {
  assertIdentifier(sessionId, 'sessionId');
  assertCheckpointMeta(meta);
  // Its transaction's id (the row's new xmin, read by the write batch) lets the session's next commit skip the read.
  const settled = ({ onCommitted, transactionId, ...result }: StepCommitOnConnectionResult) => {
    onCommitted?.({ ...(transactionId === undefined ? {} : { transactionId }) });
    return result;
  };
  const known = cache?.take(sessionId);
  if (cache !== undefined && known !== undefined && mayCommitOptimistically(known, meta.checkpointId, options.expectedVersion)) {
    try {
      // ONE autocommit statement: the guarded write batch (see `commitPostgresStepOn`'s `known`).
      return settled(
        await database.run('commit a step', (connection) =>
          commitPostgresStepOn(connection, tables, sessionId, write, appendMessages, meta, options, cache, known),
        ),
      );
    } catch (error) {
      if (!refusedOptimisticCommit(error)) throw error;
    }
  }
  return settled(
    await database.transaction('commit a step', (connection) =>
      commitPostgresStepOn(connection, tables, sessionId, write, appendMessages, meta, options, cache),
    ),
  );
}

/**
 * {@link commitPostgresStep} on a connection inside the caller's transaction (the caller commits or rolls back):
 * the same statements, for a commit that joins another transaction (a step's record on the same database).
 *
 * With `cache`, on a connection that enforces guards (a pipelined step record): a session this process committed last
 * (`cache` entry) is written without reading it first — the session update is a guard (`xmin` still the one that
 * commit left, no staged rows for this step), so if anyone wrote the row since, the transaction fails and is tried
 * again, reading (the entry was taken). `onCommitted` remembers what this commit wrote, once its transaction commits.
 * `known`: such an entry the caller took, for a commit on a connection outside any transaction: it reads nothing and
 * its guarded writes run as ONE autocommit statement, failing whole (SQLSTATE 22012) when the row was written since.
 *
 * @example
 * await commitPostgresStepOn(client, tables, 's1', { stepCount: 2 }, messages, { checkpointId: 'r1:2', runId: 'r1', stepCount: 2 });
 */
export async function commitPostgresStepOn(
  connection: SqlConnection,
  tables: StoreTables,
  sessionId: string,
  write: SessionStateWrite,
  appendMessages: Message[],
  meta: CheckpointMeta,
  options: SaveAndPromoteOptions = {},
  cache?: CommitCache,
  known?: CommittedSession,
): Promise<StepCommitOnConnectionResult> {
  assertIdentifier(sessionId, 'sessionId');
  assertCheckpointMeta(meta);
  const stepId = options.stepId ?? meta.checkpointId;
  const stableMessages = withMessageIds(appendMessages);
  const guarded = cache !== undefined && isDeferring(connection) && connection.enforcesGuards === true;
  const last = known ?? (guarded ? cache.take(sessionId) : undefined);
  const optimistic = last !== undefined && (options.expectedVersion === undefined || options.expectedVersion === last.state.version) ? last : undefined;
  const { read, checkpoints, staged, existing } =
    optimistic === undefined ? await lockAndRead(connection, tables, sessionId, meta.checkpointId, stepId, stableMessages) : knownRead(optimistic);
  const { state, messageCount, interruptRequested } = read;
  const { exists, base } = checkpoints;
  const messages = prepareMessagesForAppend(stableMessages, existing, messageCount);
  if (exists) {
    return { newVersion: state.version, checkpointId: meta.checkpointId, report: { state, messageCount, appended: [], interruptRequested } };
  }
  if (options.expectedVersion !== undefined && options.expectedVersion !== state.version) {
    throw new StaleStateError(sessionId, options.expectedVersion, state.version);
  }
  const total = messageCount + messages.length;
  const commit = buildStepCommit(state, write, rowsToApply(staged, options), total, meta, Date.now());
  // The session update, the staged rows' delete, the checkpoint and the messages: one statement.
  const writes = new WriteBatch();
  const update = sessionUpdate(tables, commit.state, { messageCount: total, stateInCheckpoint: true });
  if (optimistic === undefined) await writes.query(update.text, update.parameters);
  else {
    const [xmin, step] = [update.parameters.length + 1, update.parameters.length + 2];
    const unchanged = `xmin = $${xmin}::xid AND NOT EXISTS (SELECT 1 FROM ${tables.staging} WHERE session_id = $1 AND step_id = $${step})`;
    writes.guard(`${update.text} AND ${unchanged} RETURNING 1`, [...update.parameters, optimistic.xmin, stepId]);
  }
  if (staged.length > 0) {
    await writes.query(`DELETE FROM ${tables.staging} WHERE session_id = $1 AND step_id = $2 AND staging_key = ANY($3::text[])`, [
      sessionId,
      stepId,
      staged.map((row) => row.stagingKey),
    ]);
  }
  const delta = base === undefined || commit.delta === null ? undefined : { base, patches: commit.delta };
  const chainBytes = await insertCheckpointRow(writes, tables, commit.checkpoint, delta, commit.patches);
  await insertPostgresMessages(writes, tables, sessionId, messages);
  const transactionId = await writes.flush(connection);
  const report = { state: commit.state, messageCount: total, appended: messages, interruptRequested };
  // The next commit may start from here when nobody writes the row meanwhile (its own copy of the state).
  const remembered = { state: { ...commit.state, customState: commit.checkpoint.customState }, messageCount: total, chainBytes };
  const onCommitted =
    cache !== undefined && !interruptRequested
      ? (outcome: { transactionId?: string }) => {
          if (outcome.transactionId !== undefined) cache.remember(sessionId, { xmin: outcome.transactionId, ...remembered });
        }
      : undefined;
  const ran = transactionId === undefined ? {} : { transactionId };
  return { newVersion: commit.state.version, checkpointId: meta.checkpointId, report, ...ran, ...(onCommitted === undefined ? {} : { onCommitted }) };
}

/**
 * What {@link commitPostgresStepOn} did: the new version, the checkpoint, the report; `onCommitted` (to call once its
 * transaction commits, with that transaction's id) when the commit may be remembered for the next one;
 * `transactionId` when its writes ran here as one statement (not handed to a deferring connection).
 *
 * @example
 * const { report, onCommitted } = await commitPostgresStepOn(connection, tables, 's1', write, messages, meta);
 */
export interface StepCommitOnConnectionResult {
  newVersion: number;
  checkpointId: string;
  report: StepCommitReport;
  onCommitted?: (outcome: { transactionId?: string }) => void;
  transactionId?: string;
}

/** What {@link lockAndRead} would find after the commit `known` describes, when nobody wrote the session since. */
function knownRead(known: CommittedSession) {
  const pointer = known.state.checkpointId;
  return {
    read: { state: known.state, messageCount: known.messageCount, interruptRequested: false },
    checkpoints: { exists: false, base: pointer === undefined ? undefined : { checkpointId: pointer, chainBytes: known.chainBytes } },
    staged: [] as StagedChanges[],
    existing: new Set<string>(),
  };
}

/**
 * The commit's reads in ONE statement: the session row locked (its state rebuilt from the chain), the checkpoint
 * lookup (pointer taken from the row), the step's staged rows and the new messages' existing ids. When the lock
 * waited for a concurrent writer (the locked version is not the one the statement's snapshot sees), the other reads
 * may miss that writer's rows: they run again in a second statement, as before the lock was merged.
 */
async function lockAndRead(
  connection: SqlConnection,
  tables: StoreTables,
  sessionId: string,
  checkpointId: string,
  stepId: string,
  messages: readonly Message[],
) {
  const reads = new SelectBatch();
  const pending = Promise.all([
    reads.query<SessionReadRow>(sessionReadSql(tables, { lock: true, chain: true, xmin: true }), [sessionId]),
    readCommitCheckpointRows(reads, tables, sessionId, checkpointId),
    selectStagedChanges(reads, tables, sessionId, stepId),
    selectExistingMessageIds(reads, tables, sessionId, messages),
  ]);
  const [[locked, checkpointRows, staged, existing]] = await Promise.all([pending, reads.flush(connection)]);
  const row = locked.rows[0];
  if (row === undefined) throw new SessionNotFoundError(sessionId);
  const read = await decodeSessionRead(connection, tables, row, true);
  if (row.locked_xmin === row.snapshot_xmin) {
    return { read, checkpoints: decideCommitCheckpoints(checkpointRows, checkpointId, read.state.checkpointId), staged, existing };
  }
  const again = new SelectBatch();
  const retried = Promise.all([
    findCommitCheckpoints(again, tables, sessionId, checkpointId, read.state.checkpointId),
    selectStagedChanges(again, tables, sessionId, stepId),
    selectExistingMessageIds(again, tables, sessionId, messages),
  ]);
  const [[checkpoints, stagedAgain, existingAgain]] = await Promise.all([retried, again.flush(connection)]);
  return { read, checkpoints, staged: stagedAgain, existing: existingAgain };
}
