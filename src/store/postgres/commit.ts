import { StaleStateError } from '../../errors/index.js';
import type { Message } from '../../types/message.js';
import type { CheckpointMeta, SaveAndPromoteOptions, SessionStateWrite } from '../../types/session.js';
import type { StepCommitReport } from '../../types/step-commit-report.js';
import { withMessageIds } from '../message-append.js';
import { buildStepCommit } from '../step-commit.js';
import { assertCheckpointMeta, assertIdentifier } from '../validation.js';
import { findCommitCheckpoints, insertCheckpointRow } from './checkpoint-chain.js';
import type { PostgresContext } from './database.js';
import { insertPostgresMessages, planPostgresAppend } from './messages.js';
import { writeSession } from './session-lock.js';
import { lockSession } from './session-read.js';
import { selectStagedChanges } from './staging.js';

/**
 * `saveStateAndPromoteStaging` in one transaction with a constant number of statements whatever the
 * history length: lock the session row, return early when the checkpoint id exists (idempotent
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
): Promise<{ newVersion: number; checkpointId: string; report: StepCommitReport }> {
  assertIdentifier(sessionId, 'sessionId');
  assertCheckpointMeta(meta);
  const stepId = options.stepId ?? meta.checkpointId;
  const stableMessages = withMessageIds(appendMessages);
  return database.transaction('commit a step', async (connection) => {
    const { state, messageCount, interruptRequested } = await lockSession(connection, tables, sessionId);
    const { exists, base } = await findCommitCheckpoints(connection, tables, sessionId, meta.checkpointId, state.checkpointId);
    if (exists) {
      return { newVersion: state.version, checkpointId: meta.checkpointId, report: { state, messageCount, appended: [], interruptRequested } };
    }
    if (options.expectedVersion !== undefined && options.expectedVersion !== state.version) {
      throw new StaleStateError(sessionId, options.expectedVersion, state.version);
    }
    const staged = await selectStagedChanges(connection, tables, sessionId, stepId);
    const messages = await planPostgresAppend(connection, tables, sessionId, stableMessages, messageCount);
    const total = messageCount + messages.length;
    const commit = buildStepCommit(state, write, staged, total, meta, Date.now());
    await writeSession(connection, tables, commit.state, { messageCount: total, stateInCheckpoint: true });
    if (staged.length > 0) {
      await connection.query(`DELETE FROM ${tables.staging} WHERE session_id = $1 AND step_id = $2 AND staging_key = ANY($3::text[])`, [
      sessionId,
      stepId,
      staged.map((row) => row.stagingKey),
    ]);
    }
    const delta = base === undefined || commit.delta === null ? undefined : { base, patches: commit.delta };
    await insertCheckpointRow(connection, tables, commit.checkpoint, delta);
    await insertPostgresMessages(connection, tables, sessionId, messages);
    return { newVersion: commit.state.version, checkpointId: meta.checkpointId, report: { state: commit.state, messageCount: total, appended: messages, interruptRequested } };
  });
}
