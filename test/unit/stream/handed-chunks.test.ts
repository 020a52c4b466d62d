import { describe, expect, it } from 'vitest';
import type { KeyedChunk } from '../../../src/stream/chunk-identity.js';
import { committedRows, type AppendAnswer, type CommittedRows } from '../../../src/stream/postgres/committed-rows.js';
import { HandedBatch, HandedChunkMailbox } from '../../../src/stream/postgres/handed-chunks.js';
import { storedRows } from '../../../src/stream/postgres/stored-chunk.js';
import type { StreamChunkInput } from '../../../src/types/stream.js';

const base = { agentId: 's1', agentType: 'assistant', step: 1, timestamp: 5 };
const keyed = (chunk: object, key: string, patchesIn?: string): KeyedChunk =>
  ({ chunk: chunk as StreamChunkInput, key, ...(patchesIn === undefined ? {} : { patchesIn }) });
const delta = (text: string): KeyedChunk => keyed({ type: 'text_delta', delta: text, ...base }, `w/1/${text}`);
const start = keyed({ type: 'tool_start', toolCallId: 'c', toolName: 't', arguments: { q: 1 }, ...base }, 'w/1/s');
const end = keyed({ type: 'tool_end', toolCallId: 'c', toolName: 't', result: 2, ...base }, 'w/1/e');
const patch = keyed({ type: 'state_patch', patches: [], ...base }, 'w/1/p', 'run:1');
const folds = { withCheckpoint: true, pairsTools: true };
const answer = (fields: Partial<AppendAnswer>): AppendAnswer => ({ base: '4', stored: '3', width: '4', stream_agent_type: 'assistant', ...fields });

describe('committedRows: the rows an append stored, as a reader reads them', () => {
  const rows = storedRows([delta('a'), start, end, delta('b')], 's1', folds, 'assistant');

  it('numbers the rows from the reserved base (a pair row takes two sequences)', () => {
    const committed = committedRows('s1', rows, answer({}), 'assistant');
    expect(committed).toMatchObject({ first: 5, last: 8, agentType: 'assistant' });
    expect(committed?.rows.map((row) => row.sequence)).toEqual([5, 7, 8]);
  });

  it.each([
    ['no answer', undefined],
    ['a row stored already or repeated', answer({ stored: '2' })],
    ['a pair row stored alone (its tool_start was stored already)', answer({ width: '3' })],
  ])('is unknown with %s', (_case, given) => {
    expect(committedRows('s1', rows, given, 'assistant')).toBeUndefined();
  });

  it('puts back the writer’s agent type last when the stream records another, as the append does', () => {
    const rows = storedRows([delta('a')], 's1', folds, 'assistant');
    const committed = committedRows('s1', rows, answer({ stored: '1', width: '1', stream_agent_type: 'planner' }), 'assistant');
    expect(committed?.rows[0]?.text).toBe('{"type":"text_delta","delta":"a","timestamp":5,"agentType":"assistant"}');
  });

  it.each([
    {
      case: 'the stream held the lazy row (skipped by its key)',
      stored: '2',
      width: '2',
      expected: { first: 5, last: 6, texts: ['b', 'c'] },
    },
    {
      case: 'Postgres lost the lazy append (stored again)',
      stored: '3',
      width: '3',
      expected: { first: 5, last: 7, texts: ['a', 'b', 'c'] },
    },
    { case: 'a new row was skipped too', stored: '1', width: '1', expected: undefined },
  ])('with one row sent again: $case', ({ stored, width, expected }) => {
    const resent = storedRows([delta('a'), delta('b'), delta('c')], 's1', folds, 'assistant');
    const committed = committedRows('s1', resent, answer({ stored, width }), 'assistant', 1);
    const texts = committed?.rows.map((row) => (JSON.parse(row.text) as { delta: string }).delta);
    expect(committed === undefined ? undefined : { first: committed.first, last: committed.last, texts }).toEqual(expected);
  });

  it('stops before a row that refers to a checkpoint (alone or folded), and is unknown when that is the first', () => {
    const folded = storedRows([delta('a'), patch, end], 's1', folds, 'assistant');
    expect(committedRows('s1', folded, answer({ stored: '2', width: '3' }), 'assistant')).toMatchObject({ first: 5, last: 5 });
    const reference = storedRows([patch], 's1', folds, 'assistant');
    expect(committedRows('s1', reference, answer({ stored: '1', width: '1' }), 'assistant')).toBeUndefined();
  });
});

describe('HandedChunkMailbox: a reader takes the committed rows that come next', () => {
  const batch = (first: number, count: number): HandedBatch => {
    const rows: CommittedRows = { streamId: 's1', agentType: 'assistant', first, last: first + count - 1, rows: [] };
    for (let sequence = first; sequence < first + count; sequence += 1) rows.rows.push({ text: `{"type":"text_delta","delta":"${sequence}"}`, step: 1, sequence });
    return new HandedBatch('s1', rows);
  };
  const sequences = (read: ReturnType<HandedChunkMailbox['take']>): number[] | string | undefined =>
    read === undefined ? undefined : 'chunks' in read ? read.chunks.map((chunk) => chunk.sequence) : `pending ${read.pending.rows?.first ?? 'in flight'}`;

  it.each([
    ['the next ones, committed, in a row', [[5, 2, 'committed'], [7, 1, 'committed']], 4, [5, 6, 7]],
    ['after a gap: none (the database is read)', [[6, 2, 'committed']], 4, undefined],
    ['behind the reader: none', [[3, 2, 'committed']], 4, undefined],
    ['the next ones, pending: wait for them', [[5, 2, 'pending']], 4, 'pending 5'],
    ['the next ones, discarded: none', [[5, 2, 'discarded']], 4, undefined],
  ] as const)('%s', (_case, batches, after, expected) => {
    const mailbox = new HandedChunkMailbox(500);
    for (const [first, count, state] of batches) {
      const handed = batch(first, count);
      mailbox.offer(handed);
      if (state === 'committed') handed.commit();
      if (state === 'discarded') handed.discard();
    }
    expect(sequences(mailbox.take(after))).toEqual(expected);
  });

  it('holds a pending batch until it settles, then hands it once; holds no more rows than its limit', async () => {
    const mailbox = new HandedChunkMailbox(3);
    const pending = batch(5, 2);
    mailbox.offer(pending);
    mailbox.offer(batch(7, 2)); // past the limit: not held
    expect(sequences(mailbox.take(4))).toBe('pending 5');
    pending.commit();
    await pending.settled;
    expect(sequences(mailbox.take(4))).toEqual([5, 6]);
    expect(mailbox.take(4)).toBeUndefined();
  });

  it('holds an append in flight (its rows unknown) as pending; placed and committed, hands its rows if they come next', async () => {
    const mailbox = new HandedChunkMailbox(500);
    const [next, later] = [new HandedBatch('s1'), new HandedBatch('s1')];
    mailbox.offer(next);
    mailbox.offer(later);
    expect(sequences(mailbox.take(4))).toBe('pending in flight');
    next.place(batch(5, 2).rows!);
    next.commit();
    later.commit(); // no rows known: discarded
    await Promise.all([next.settled, later.settled]);
    expect(later.state).toBe('discarded');
    expect(sequences(mailbox.take(4))).toEqual([5, 6]);
    expect(mailbox.take(6)).toBeUndefined();
  });

  it('builds new chunk objects for every reader, as a read of the database does', () => {
    const handed = batch(5, 1);
    const [first, second] = [new HandedChunkMailbox(10), new HandedChunkMailbox(10)];
    first.offer(handed);
    second.offer(handed);
    handed.commit();
    const [a, b] = [first.take(4), second.take(4)];
    expect(a).toEqual(b);
    expect(a !== undefined && 'chunks' in a && b !== undefined && 'chunks' in b && a.chunks[0] !== b.chunks[0]).toBe(true);
  });
});
