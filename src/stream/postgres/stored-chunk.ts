import type { StreamChunk, StreamChunkInput } from '../../types/stream.js';
import type { KeyedChunk } from '../chunk-identity.js';

/** The member naming the checkpoint that holds a stored `state_patch` chunk's patches (always its first). */
const PATCHES_IN = 'patchesIn';
/** The first member of a row that holds a `state_patch` chunk folded in before its own chunk (see `storedRows`). */
const PATCHES_BEFORE = 'patchesBefore';
/** A folded `state_patch` chunk's timestamp, kept only when it differs from the row's own chunk. */
const PATCHED_AT = 'patchedAt';

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
 *
 * @example
 * const rows: StoredRows = { texts: ['{"type":"text_delta","delta":"Hi"}'], keys: ['w/a/1'], steps: [1], widths: [1], elided: [true] };
 */
export interface StoredRows {
  texts: string[];
  keys: string[];
  steps: number[];
  widths: number[];
  elided: boolean[];
}

/** Members a `state_patch` chunk may have to be folded into the row of the chunk after it. */
const FOLDABLE_MEMBERS = new Set(['type', 'patches', 'agentId', 'agentType', 'step', 'timestamp']);

/** Whether `chunk` (given its checkpoint) can ride in `next`'s row: same agent and step, nothing else of its own. */
function foldable(keyed: KeyedChunk, next: KeyedChunk | undefined): next is KeyedChunk {
  const { chunk } = keyed;
  if (next === undefined || chunk.type !== 'state_patch' || next.chunk.type === 'state_patch' || !keyed.key.startsWith('w/')) return false;
  const carrier = next.chunk as unknown as Record<string, unknown>;
  if (PATCHES_IN in carrier || PATCHES_BEFORE in carrier || PATCHED_AT in carrier) return false;
  return (
    Object.keys(chunk).every((name) => FOLDABLE_MEMBERS.has(name)) &&
    chunk.agentId === next.chunk.agentId &&
    chunk.agentType === next.chunk.agentType &&
    chunk.step === next.chunk.step
  );
}

/**
 * The rows to store for `chunks`. Appended inside the transaction that commits their checkpoint (`withCheckpoint`),
 * a `state_patch` chunk whose patches that checkpoint holds (`patchesIn`) costs no row of its own when the next
 * chunk is its agent's in the same step (a tool step's `tool_end`): that row takes two sequences and its text
 * starts with `{"patchesBefore":"<checkpoint id>"` (plus `patchedAt` when the timestamps differ); readers put the
 * `state_patch` back at the sequence before it (`chunksFromStored`). Otherwise a reference (`storedChunkText`).
 * Only the next chunk's key is kept: a folded `state_patch` has the writer's own key, which nothing writes again.
 * Chunks of `agentType` (the writer's) are stored without it.
 *
 * @example
 * const { texts, keys, steps, widths, elided } = storedRows(keyedChunks, streamId, true, 'assistant');
 */
export function storedRows(chunks: readonly KeyedChunk[], streamId: string, withCheckpoint: boolean, agentType?: string): StoredRows {
  const rows: StoredRows = { texts: [], keys: [], steps: [], widths: [], elided: [] };
  // A row is its (last) chunk's: its key, its step, and its agent type left out or not.
  const add = (text: string, { key, chunk }: KeyedChunk, width: number): void => {
    rows.texts.push(text);
    rows.keys.push(key);
    rows.steps.push(chunk.step);
    rows.widths.push(width);
    rows.elided.push(agentType !== undefined && chunk.agentType === agentType);
  };
  for (let index = 0; index < chunks.length; index += 1) {
    const keyed = chunks[index]!;
    const patchesIn = withCheckpoint ? keyed.patchesIn : undefined;
    const next = chunks[index + 1];
    if (patchesIn !== undefined && foldable(keyed, next)) {
      const timestamp = keyed.chunk.timestamp === next.chunk.timestamp ? {} : { [PATCHED_AT]: keyed.chunk.timestamp };
      add(JSON.stringify({ [PATCHES_BEFORE]: patchesIn, ...timestamp, ...storedMembers(next.chunk, streamId, agentType) }), next, 2);
      index += 1;
    } else {
      add(storedChunkText(keyed.chunk, streamId, patchesIn, agentType), keyed, 1);
    }
  }
  return rows;
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
  if (!text.startsWith(FOLDED_PATCH_PREFIX)) return [chunkFromStored(text, streamId, step, sequence, patches, agentType)];
  const { [PATCHES_BEFORE]: _checkpoint, [PATCHED_AT]: patchedAt, ...members } = JSON.parse(text) as Record<string, unknown>;
  const chunk = { ...impliedMembers(streamId, agentType), ...members, step, sequence } as StreamChunk;
  const statePatch = {
    type: 'state_patch',
    patches: referencedPatches(patches),
    agentId: chunk.agentId,
    agentType: chunk.agentType,
    step,
    timestamp: typeof patchedAt === 'number' ? patchedAt : chunk.timestamp,
    sequence: sequence - 1,
  } as StreamChunk;
  return [statePatch, chunk];
}
