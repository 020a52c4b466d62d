import { StaleStateError } from '../../errors/index.js';
import type { Message } from '../../types/message.js';
import type { CheckpointMeta, SaveAndPromoteOptions, SessionStateWrite } from '../../types/session.js';
import { buildStepCommit, rowsToApply } from '../step-commit.js';
import { assertCheckpointMeta } from '../validation.js';
import type { MemoryData } from './memory-data.js';
import { planMemoryAppend } from './messages.js';
import { stagedRowsOf } from './staging.js';

/**
 * The atomic step commit of the in-memory store: everything is computed first and assigned only when no
 * step threw, so a failure writes nothing. An existing checkpoint id makes it a no-op.
 *
 * @example
 * commitMemoryStep(data, 's1', { stepCount: 2 }, messages, { checkpointId: 'r1:2', runId: 'r1', stepCount: 2 });
 */
export function commitMemoryStep(
  data: MemoryData,
  sessionId: string,
  write: SessionStateWrite,
  appendMessages: Message[],
  meta: CheckpointMeta,
  options: SaveAndPromoteOptions = {},
): { newVersion: number; checkpointId: string } {
  assertCheckpointMeta(meta);
  const record = data.require(sessionId);
  if (record.checkpoints.some((checkpoint) => checkpoint.id === meta.checkpointId)) {
    return { newVersion: record.state.version, checkpointId: meta.checkpointId };
  }
  if (options.expectedVersion !== undefined && options.expectedVersion !== record.state.version) {
    throw new StaleStateError(sessionId, options.expectedVersion, record.state.version);
  }
  const stepId = options.stepId ?? meta.checkpointId;
  const rows = stagedRowsOf(record, stepId);
  const messages = planMemoryAppend(record, appendMessages);
  const { state, checkpoint } = buildStepCommit(record.state, write, rowsToApply(rows, options), record.messages.length + messages.length, meta, Date.now());
  record.state = state;
  record.messages.push(...messages);
  record.checkpoints.push(checkpoint);
  record.staging = record.staging.filter((row) => row.stepId !== stepId);
  return { newVersion: state.version, checkpointId: checkpoint.id };
}
