import type { StreamChunk, StreamChunkInput } from '../../types/stream.js';
import type { KeyedChunk } from '../chunk-identity.js';

/** The member naming the checkpoint that holds a stored `state_patch` chunk's patches (always its first). */
const PATCHES_IN = 'patchesIn';
/** The first member of a row that holds a `state_patch` chunk folded in before its own chunk (see `storedRows`). */
const PATCHES_BEFORE = 'patchesBefore';
/** A folded `state_patch` chunk's timestamp, kept only when it differs from the row's own chunk. */
const PATCHED_AT = 'patchedAt';
/** The first member of a `tool_end` row that holds its call's `tool_start` folded in before it: that call's arguments. */
const START_ARGUMENTS = 'startArguments';
/** A folded `tool_start` chunk's timestamp, kept only when it differs from its `tool_end`'s. */
const STARTED_AT = 'startedAt';
/** Members that mark a row as holding a folded chunk: a chunk carrying one of them is never a fold's carrier. */
const FOLD_MARKERS = [PATCHES_IN, PATCHES_BEFORE, PATCHED_AT, START_ARGUMENTS, STARTED_AT];

/**
 * How a stored chunk's text begins when it is a reference to its checkpoint's patches (see `storedChunkText`).
 *
 * @example
 * storedChunkText(chunk, 's1', 'run-1:2').startsWith(PATCHES_REFERENCE_PREFIX); // true for a state_patch chunk
 */
export const PATCHES_REFERENCE_PREFIX = `{"${PATCHES_IN}":`;

/**
 * How a row's text begins when it holds two chunks: a `state_patch` whose patches are in the named checkpoint (the
 * row's sequence minus one), then the chunk the rest of the text describes (see `storedRows`).
 *
 * @example
 * storedRows(chunks, 's1', true).texts[0]?.startsWith(FOLDED_PATCH_PREFIX);
 */
export const FOLDED_PATCH_PREFIX = `{"${PATCHES_BEFORE}":`;

/**
 * How a row's text begins when it holds two chunks: a call's `tool_start` (its `arguments` are this first member),
 * then that call's `tool_end`, which the rest of the text describes (see `storedRows`).
 *
 * @example
 * storedRows(chunks, 's1', { withCheckpoint: true, pairsTools: true }).texts[0]?.startsWith(FOLDED_START_PREFIX);
 */
export const FOLDED_START_PREFIX = `{"${START_ARGUMENTS}":`;

/**
 * The chunk's stored members: no `sequence` and `step` (columns), no `agentId` when it is the stream's id, no
 * `agentType` when it is `agentType` (the writer's; migration 015: the append puts it back unless it is the stream's).
 */
function storedMembers(chunk: StreamChunkInput, streamId: string, agentType?: string): Record<string, unknown> {
  const { sequence: _sequence, step: _step, ...rest } = chunk as StreamChunkInput & { sequence?: number };
  const stored: Record<string, unknown> = rest;
  if (rest.agentId === streamId) delete stored.agentId;
  if (agentType !== undefined && rest.agentType === agentType) delete stored.agentType;
  // A chunk whose own members would read as a reference or a fold keeps `type` first.
  return Object.keys(stored)[0] === 'type' ? stored : { type: stored.type, ...stored };
}

/**
 * A chunk as the Postgres stream manager stores it (migration 011): compact JSON text without what its row already
 * says — `sequence` and `step` (columns) and `agentId` when it is the stream's own id (the root agent writes into
 * its session's stream). About a third smaller than the chunk as jsonb. With `patchesIn` (migration 014), a
 * `state_patch` chunk is stored as a reference to that checkpoint of its agent, which holds its patches. With
 * `agentType` (migration 015), a chunk of that type is stored without it (see `StoredRows.elided`).
 *
 * @example
 * storedChunkText({ type: 'text_delta', delta: 'Hi', agentId: 's1', agentType: 'a', step: 1, timestamp: 0 }, 's1');
 * // '{"type":"text_delta","delta":"Hi","agentType":"a","timestamp":0}'
 */
export function storedChunkText(chunk: StreamChunkInput, streamId: string, patchesIn?: string, agentType?: string): string {
  const stored = storedMembers(chunk, streamId, agentType);
  if (patchesIn === undefined || chunk.type !== 'state_patch') return JSON.stringify(stored);
  // A reference: the first member marks it (readers look for the prefix), the patches stay in the checkpoint.
  const { patches: _patches, ...reference } = stored;
  return JSON.stringify({ [PATCHES_IN]: patchesIn, ...reference });
}

/**
 * Rows for one append, in order: stored texts, keys, steps, how many sequences each row takes, and whether the text
 * left out its `agentType` (the writer's: the append statement puts it back unless the stream records that type).
 * A row holding a call's `tool_start` and `tool_end` also names the `tool_start`'s key (`startKeys`) and the
 * `tool_end`'s text alone (`alone`): when an earlier attempt of the step stored that `tool_start` already, the append
 * stores the `tool_end` alone (one sequence). Both are null for every other row.
 *
 * @example
 * const rows: StoredRows = { texts: ['{"type":"text_delta","delta":"Hi"}'], keys: ['w/a/1'], steps: [1], widths: [1], elided: [true], startKeys: [null], alone: [null] };
 */
export interface StoredRows {
  texts: string[];
  keys: string[];
  steps: number[];
  widths: number[];
  elided: boolean[];
  startKeys: (string | null)[];
  alone: (string | null)[];
}

/**
 * Where rows of one append may hold two chunks. `withCheckpoint`: appended inside the transaction that commits the
 * step's checkpoint (a `state_patch` may ride in the next chunk's row). `pairsTools`: nothing appended here is ever
 * written again — the step's record commits in the same transaction, so its body never runs again once these rows
 * are stored — and a call's `tool_start` may ride in its `tool_end`'s row (keyed by the `tool_end`; the append
 * stores the `tool_end` alone when an earlier attempt stored the `tool_start`, see `StoredRows.startKeys`).
 *
 * @example
 * const folds: StoredRowFolds = { withCheckpoint: true, pairsTools: true };
 */
export interface StoredRowFolds {
  withCheckpoint: boolean;
  pairsTools?: boolean;
}

/** Members a `state_patch` chunk may have to be folded into the row of the chunk after it. */
const FOLDABLE_MEMBERS = new Set(['type', 'patches', 'agentId', 'agentType', 'step', 'timestamp']);
/** Members a `tool_start` chunk may have to be folded into its `tool_end`'s row. */
const FOLDABLE_START_MEMBERS = new Set(['type', 'toolCallId', 'toolName', 'arguments', 'agentId', 'agentType', 'step', 'timestamp']);

/** Whether `next` can carry a folded chunk: same agent and step as `keyed`, and no member that marks a fold. */
function carries(keyed: KeyedChunk, next: KeyedChunk | undefined, members: Set<string>): next is KeyedChunk {
  if (next === undefined) return false;
  const { chunk } = keyed;
  const carrier = next.chunk as unknown as Record<string, unknown>;
  return (
    FOLD_MARKERS.every((marker) => !(marker in carrier)) &&
    Object.keys(chunk).every((name) => members.has(name)) &&
    chunk.agentId === next.chunk.agentId &&
    chunk.agentType === next.chunk.agentType &&
    chunk.step === next.chunk.step
  );
}

/** Whether `chunk` (given its checkpoint) can ride in `next`'s row: a writer-keyed `state_patch` before another type. */
function foldable(keyed: KeyedChunk, next: KeyedChunk | undefined): next is KeyedChunk {
  if (keyed.chunk.type !== 'state_patch' || next?.chunk.type === 'state_patch' || !keyed.key.startsWith('w/')) return false;
  return carries(keyed, next, FOLDABLE_MEMBERS);
}

/** Whether `keyed` is a `tool_start` whose call's `tool_end` comes next, with nothing of its own beyond its arguments. */
function startOfPair(keyed: KeyedChunk, next: KeyedChunk | undefined): next is KeyedChunk {
  const start = keyed.chunk;
  if (start.type !== 'tool_start' || next?.chunk.type !== 'tool_end' || start.arguments === undefined) return false;
  return start.toolCallId === next.chunk.toolCallId && start.toolName === next.chunk.toolName && carries(keyed, next, FOLDABLE_START_MEMBERS);
}

/**
 * The rows to store for `chunks`. Appended inside the transaction that commits their checkpoint (`withCheckpoint`),
 * a `state_patch` chunk whose patches that checkpoint holds (`patchesIn`) costs no row of its own when the next
 * chunk is its agent's in the same step (a tool step's `tool_end`): that row takes two sequences and its text
 * starts with `{"patchesBefore":"<checkpoint id>"` (plus `patchedAt` when the timestamps differ); readers put the
 * `state_patch` back at the sequence before it (`chunksFromStored`). Otherwise a reference (`storedChunkText`).
 * Only the next chunk's key is kept: a folded `state_patch` has the writer's own key, which nothing writes again.
 * With `pairsTools`, a call's `tool_start` followed by its `tool_end` is one row the same way, its text starting with
 * `{"startArguments":` (plus `startedAt` when the timestamps differ), keyed by the `tool_end` and naming the
 * `tool_start`'s key (`startKeys`).
 * Chunks of `agentType` (the writer's) are stored without it.
 *
 * @example
 * const { texts, keys, steps, widths, elided } = storedRows(keyedChunks, streamId, { withCheckpoint: true }, 'assistant');
 */
export function storedRows(chunks: readonly KeyedChunk[], streamId: string, folds: StoredRowFolds, agentType?: string): StoredRows {
  const rows: StoredRows = { texts: [], keys: [], steps: [], widths: [], elided: [], startKeys: [], alone: [] };
  // A row is its (last) chunk's: its key, its step, and its agent type left out or not.
  const add = (text: string, { key, chunk }: KeyedChunk, width: number, pair?: { startKey: string; alone: string }): void => {
    rows.texts.push(text);
    rows.keys.push(key);
    rows.steps.push(chunk.step);
    rows.widths.push(width);
    rows.elided.push(agentType !== undefined && chunk.agentType === agentType);
    rows.startKeys.push(pair?.startKey ?? null);
    rows.alone.push(pair?.alone ?? null);
  };
  for (let index = 0; index < chunks.length; index += 1) {
    const keyed = chunks[index]!;
    const patchesIn = folds.withCheckpoint ? keyed.patchesIn : undefined;
    const next = chunks[index + 1];
    if (patchesIn !== undefined && foldable(keyed, next)) {
      add(foldedText([PATCHES_BEFORE, patchesIn], PATCHED_AT, keyed.chunk, next.chunk, storedMembers(next.chunk, streamId, agentType)), next, 2);
      index += 1;
    } else if (folds.pairsTools === true && startOfPair(keyed, next)) {
      const end = storedMembers(next.chunk, streamId, agentType);
      const startArguments = (keyed.chunk as StreamChunkInput & { arguments: unknown }).arguments;
      const pair = { startKey: keyed.key, alone: JSON.stringify(end) };
      add(foldedText([START_ARGUMENTS, startArguments], STARTED_AT, keyed.chunk, next.chunk, end), next, 2, pair);
      index += 1;
    } else {
      add(storedChunkText(keyed.chunk, streamId, patchesIn, agentType), keyed, 1);
    }
  }
  return rows;
}

/**
 * The text of a row holding `folded` before `carrier` (whose stored members are `carried`): the fold's first member,
 * `folded`'s timestamp under `timeMember` only when it differs from the carrier's, then the carrier's members.
 */
function foldedText([member, value]: [string, unknown], timeMember: string, folded: StreamChunkInput, carrier: StreamChunkInput, carried: object): string {
  const timestamp = folded.timestamp === carrier.timestamp ? {} : { [timeMember]: folded.timestamp };
  return JSON.stringify({ [member]: value, ...timestamp, ...carried });
}

/**
 * A row's text holding a folded chunk (see {@link foldedText}) read back: the fold's first member's value, the carrier
 * (its sequence the row's) and the folded chunk's timestamp.
 */
function unfolded(
  text: string,
  [member, timeMember]: [string, string],
  row: { streamId: string; step: number; sequence: number; agentType?: string | null },
): { value: unknown; carrier: StreamChunk; foldedAt: number } {
  const { [member]: value, [timeMember]: foldedAt, ...members } = JSON.parse(text) as Record<string, unknown>;
  const carrier = { ...impliedMembers(row.streamId, row.agentType), ...members, step: row.step, sequence: row.sequence } as StreamChunk;
  return { value, carrier, foldedAt: typeof foldedAt === 'number' ? foldedAt : carrier.timestamp };
}

/**
 * The chunk back from its stored text (also a jsonb rendering of one stored before migration 011, which kept every
 * field): `agentId`, `agentType` (the stream's, migration 015) and `step` taken from the row where the text leaves
 * them out.
 *
 * @example
 * chunkFromStored('{"type":"text_delta","delta":"Hi"}', 's1', 1, 7, null, 'a'); // { agentId: 's1', agentType: 'a', type: 'text_delta', delta: 'Hi', step: 1, sequence: 7 }
 * chunkFromStored('{"patchesIn":"run-1:2","type":"state_patch","agentType":"a"}', 's1', 2, 8, '[]'); // patches from the checkpoint
 */
export function chunkFromStored(
  text: string,
  streamId: string,
  step: number,
  sequence: number,
  patches?: string | null,
  agentType?: string | null,
): StreamChunk {
  const stored = JSON.parse(text) as Partial<StreamChunk> & { [PATCHES_IN]?: unknown };
  const implied = impliedMembers(streamId, agentType);
  if (typeof stored[PATCHES_IN] === 'string' && stored.type === 'state_patch') {
    const { [PATCHES_IN]: _reference, ...chunk } = stored;
    return { ...implied, ...chunk, patches: referencedPatches(patches), step: stored.step ?? step, sequence } as StreamChunk;
  }
  return { ...implied, ...stored, step: stored.step ?? step, sequence } as StreamChunk;
}

/** What a stored text leaves to its row: the stream's id as `agentId`, the stream's agent type (when it records one). */
function impliedMembers(streamId: string, agentType: string | null | undefined): { agentId: string; agentType?: string } {
  return agentType == null ? { agentId: streamId } : { agentId: streamId, agentType };
}

/** A reference's patches: its checkpoint's, none when that checkpoint is gone (its session was deleted). */
function referencedPatches(patches: string | null | undefined): unknown {
  return patches == null ? [] : JSON.parse(patches);
}

/**
 * The chunks a stored row holds: one, or two for a row that carries a folded `state_patch` (see `storedRows`),
 * whose patches are `patches` (its checkpoint's; `[]` when that checkpoint is gone); `agentType` is the stream's.
 *
 * @example
 * chunksFromStored('{"patchesBefore":"run-1:2","type":"tool_end","toolCallId":"c1","toolName":"t"}', 's1', 2, 9, '[]'); // state_patch (8), tool_end (9)
 */
export function chunksFromStored(
  text: string,
  streamId: string,
  step: number,
  sequence: number,
  patches?: string | null,
  agentType?: string | null,
): StreamChunk[] {
  const row = { streamId, step, sequence, agentType };
  if (text.startsWith(FOLDED_START_PREFIX)) {
    // A call's tool_start and tool_end.
    const { value: startArguments, carrier, foldedAt } = unfolded(text, [START_ARGUMENTS, STARTED_AT], row);
    const end = carrier as StreamChunk & { toolCallId: string; toolName: string };
    const start = {
      type: 'tool_start',
      toolCallId: end.toolCallId,
      toolName: end.toolName,
      arguments: startArguments,
      agentId: end.agentId,
      ...(end.agentType === undefined ? {} : { agentType: end.agentType }),
      step,
      timestamp: foldedAt,
      sequence: sequence - 1,
    } as StreamChunk;
    return [start, end];
  }
  if (!text.startsWith(FOLDED_PATCH_PREFIX)) return [chunkFromStored(text, streamId, step, sequence, patches, agentType)];
  const { carrier: chunk, foldedAt } = unfolded(text, [PATCHES_BEFORE, PATCHED_AT], row);
  const statePatch = {
    type: 'state_patch',
    patches: referencedPatches(patches),
    agentId: chunk.agentId,
    agentType: chunk.agentType,
    step,
    timestamp: foldedAt,
    sequence: sequence - 1,
  } as StreamChunk;
  return [statePatch, chunk];
}
