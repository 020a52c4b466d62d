import type { StreamChunk } from '../../types/stream.js';
import { chunksFromStored, FOLDED_PATCH_PREFIX, PATCHES_REFERENCE_PREFIX, type StoredRows } from './stored-chunk.js';

/**
 * What the append statement answers (`PostgresStreamStatements.append`): the sequence before the rows it reserved, how
 * many rows it inserted, how many sequences it reserved, and the stream's agent type after it. Bigints come as text.
 *
 * @example
 * const answer: AppendAnswer = { base: '4', stored: '2', width: '3', stream_agent_type: 'assistant' };
 */
export interface AppendAnswer {
  base: string | number;
  stored: string | number;
  width: string | number;
  stream_agent_type: string | null;
}

/**
 * One stored row as a reader of the stream would read it: its text as stored, its step and sequence columns.
 *
 * @example
 * const row: CommittedRow = { text: '{"type":"text_delta","delta":"Hi"}', step: 1, sequence: 5 };
 */
export interface CommittedRow {
  text: string;
  step: number;
  sequence: number;
}

/**
 * Rows an append committed, exactly as a reader would read them: they hold every sequence from `first` to `last`
 * (a row holding two chunks takes two), and the stream recorded `agentType` when they were stored.
 *
 * @example
 * const row = { text: '{"type":"text_delta","delta":"Hi"}', step: 1, sequence: 5 };
 * const rows: CommittedRows = { streamId: 's1', agentType: 'assistant', first: 5, last: 5, rows: [row] };
 */
export interface CommittedRows {
  streamId: string;
  agentType: string | null;
  first: number;
  last: number;
  rows: CommittedRow[];
}

/**
 * The rows `answer` says the append of `rows` (by a writer of `writerAgentType`) stored, with their sequences and stored
 * texts, or `undefined` when they cannot be known exactly: some row was stored already or repeated (fewer rows stored),
 * a call's `tool_start` was stored already (its pair row then holds the `tool_end` alone: fewer sequences reserved), or
 * the first row refers to a checkpoint (its patches are read from that checkpoint, as jsonb renders them). Only the rows
 * before the first such reference are given: the rest is read from the database. The first `resent` rows were appended
 * before (lazily, see `appendLazily`): when the stream held them, as it does unless Postgres lost that append, they are
 * left out and the rest are given.
 *
 * @example
 * const committed = committedRows('s1', storedRows(chunks, 's1', folds, 'assistant'), answer, 'assistant');
 */
export function committedRows(
  streamId: string,
  rows: StoredRows,
  answer: AppendAnswer | undefined,
  writerAgentType: string,
  resent = 0,
): CommittedRows | undefined {
  if (answer === undefined) return undefined;
  // Rows sent again (their first append was lazy) are stored again only when that append was lost.
  const stored = Number(answer.stored);
  const skipped = stored === rows.texts.length ? 0 : resent > 0 && stored === rows.texts.length - resent ? resent : -1;
  if (skipped < 0) return undefined;
  if (Number(answer.width) !== rows.widths.slice(skipped).reduce((total, width) => total + width, 0)) return undefined;
  const agentType = answer.stream_agent_type;
  const base = Number(answer.base);
  const committed: CommittedRow[] = [];
  let sequence = base;
  for (let index = skipped; index < rows.texts.length; index += 1) {
    const text = storedText(rows.texts[index]!, rows.elided[index] === true && agentType !== writerAgentType, writerAgentType);
    const step = rows.steps[index]!;
    if (text.startsWith(PATCHES_REFERENCE_PREFIX) || text.startsWith(FOLDED_PATCH_PREFIX) || !Number.isSafeInteger(step)) break;
    sequence += rows.widths[index]!;
    committed.push({ text, step, sequence });
  }
  if (committed.length === 0) return undefined;
  return { streamId, agentType, first: base + 1, last: sequence, rows: committed };
}

/** A row's text as the append stores it: one that left out the writer's agent type gets it back, last, when the stream records another. */
function storedText(text: string, putsBackAgentType: boolean, agentType: string): string {
  return putsBackAgentType ? `${text.slice(0, -1)},"agentType":${JSON.stringify(agentType)}}` : text;
}

/**
 * The chunks `committed` holds, as the reader's statement reads them back (`chunksFromStored`, no checkpoint patches:
 * `committedRows` keeps no row that refers to one). New objects on every call.
 *
 * @example
 * for (const chunk of committedChunks(committed)) buffer.push(chunk);
 */
export function committedChunks(committed: CommittedRows): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  for (const row of committed.rows) chunks.push(...chunksFromStored(row.text, committed.streamId, row.step, row.sequence, null, committed.agentType));
  return chunks;
}
