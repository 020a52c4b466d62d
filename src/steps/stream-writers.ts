import { BufferedStreamWriter } from '../stream/buffered-stream-writer.js';
import type { StreamManager, StreamWriteOptions, StreamWriter } from '../stream/stream-manager.js';
import type { StepRecord } from '../journal/step-record.js';
import type { StreamChunkInput } from '../types/stream.js';

/** Distributes Omit over the chunk union so each member keeps its own fields. */
type ChunkBody<T> = T extends unknown ? Omit<T, 'agentId' | 'agentType' | 'timestamp' | 'step'> : never;

/** What a step writes: a chunk without its identity fields (filled in from the step's scope). */
export type ChunkPayload = ChunkBody<StreamChunkInput>;

/** Writers kept open per process; the least recently used go first (a run that crashed never releases its own). */
const MAX_CACHED_WRITERS = 1024;

const writers = new Map<string, { manager: StreamManager; writer: Promise<StreamWriter> }>();

/**
 * A per-step chunk emitter: stamps agentId/agentType/step/timestamp and writes through a writer cached per
 * (manager, stream) in this process, so a step costs no writer set-up.
 */
export class ChunkEmitter {
  constructor(
    private readonly streamManager: StreamManager,
    private readonly streamId: string,
    private readonly agentId: string,
    private readonly agentType: string,
    private readonly step: number,
  ) {}

  /**
   * Write a chunk. A `key` makes it idempotent in its stream: a step re-run after a crash (any process) that
   * writes the same key again stores nothing. `patchesIn` names the checkpoint that commits a `state_patch`
   * chunk's patches with it (see `StreamWriteOptions.patchesIn`).
   */
  async emit(payload: ChunkPayload, options?: StreamWriteOptions): Promise<void> {
    const writer = await this.writer();
    const chunk = { ...payload, agentId: this.agentId, agentType: this.agentType, step: this.step, timestamp: Date.now() };
    await writer.write(chunk, options);
  }

  /** Start opening the stream's writer now: its set-up overlaps the step's reads instead of delaying its first chunk. */
  prepare(): void {
    this.writer().catch(() => undefined); // a failure is met again by the first write
  }

  async flush(): Promise<void> {
    await (await this.writer()).flush();
  }

  /** `flush`, with a buffered writer's lazy append (`BufferedStreamWriter.flushLazily`): readers see the chunks sooner. */
  async flushLazily(): Promise<void> {
    const writer = await this.writer();
    await (writer instanceof BufferedStreamWriter ? writer.flushLazily() : writer.flush());
  }

  /**
   * Flush as part of a step's record: when the stream manager's `stepRecords` join it (the fused journal's record on
   * DBOS's system database, the public journal's batch record on its anchor's database), the buffered chunks commit in
   * the record's transaction (no write of their own); otherwise a plain `flush()`.
   */
  async flushWith(record: StepRecord): Promise<void> {
    const writer = await this.writer();
    const stepRecords = this.streamManager.stepRecords;
    if (stepRecords === undefined || !(await record.joins(stepRecords))) return writer.flush();
    // Chunks that commit with their step's own record are never written again: the manager may pair them up.
    const handover = await stepRecords.handOver(writer, { neverRewritten: record.atomicWithStep === true });
    if (handover !== undefined) record.defer(handover);
  }

  /** The same writer, stamping another step's number (a later step committing an earlier one). */
  forStep(step: number): ChunkEmitter {
    return step === this.step ? this : new ChunkEmitter(this.streamManager, this.streamId, this.agentId, this.agentType, step);
  }

  /**
   * The cached writer, unless it believes the stream closed: that belief can be older than another process's
   * reactivation (a retry or the next turn started elsewhere), so a new writer reads the stream's status — and
   * refuses only when the stream really is closed.
   */
  private async writer(): Promise<StreamWriter> {
    const key = writerKey(this.streamId, this.agentId);
    const cached = writers.get(key);
    writers.delete(key);
    if (cached !== undefined && cached.manager === this.streamManager) {
      writers.set(key, cached); // most recently used last
      const writer = await cached.writer;
      if (!(writer instanceof BufferedStreamWriter) || !writer.believesStreamClosed) return writer;
      await releaseStreamWriter(this.streamId, this.agentId);
    }
    const writer = this.streamManager.createWriter(this.streamId, this.agentId, this.agentType);
    writers.set(key, { manager: this.streamManager, writer });
    writer.catch(() => writers.delete(key));
    evictBeyondLimit();
    return writer;
  }
}

function writerKey(streamId: string, agentId: string): string {
  return `${streamId}\u0000${agentId}`;
}

function evictBeyondLimit(): void {
  while (writers.size > MAX_CACHED_WRITERS) {
    const oldest = writers.keys().next().value;
    if (oldest === undefined) return;
    const entry = writers.get(oldest);
    writers.delete(oldest);
    void entry?.writer.then((writer) => writer.close()).catch(() => undefined);
  }
}

/** Flush and forget the cached writer of a stream (when its run ends or parks). */
export async function releaseStreamWriter(streamId: string, agentId: string): Promise<void> {
  const key = writerKey(streamId, agentId);
  const entry = writers.get(key);
  writers.delete(key);
  if (entry !== undefined) await (await entry.writer).close().catch(() => undefined);
}

/**
 * The idempotency key of a chunk a step may write again when it is re-run after a crash:
 * `${runId}:${step}:${kind}:${toolCallId}` (run ids are unique per stream, so keys never collide across agents).
 *
 * @example
 * await emitter.emit(chunk, { key: chunkKey({ runId, step }, 'tool_start', toolCallId) });
 */
export function chunkKey(scope: { runId: string; step?: number; stepCount?: number }, kind: string, toolCallId: string): string {
  return `${scope.runId}:${scope.step ?? scope.stepCount ?? 0}:${kind}:${toolCallId}`;
}

/** @internal Flush and forget every cached writer (the executor's `close()`). */
export async function releaseAllStreamWriters(): Promise<void> {
  const entries = [...writers.values()];
  writers.clear();
  await Promise.all(entries.map(async (entry) => (await entry.writer).close().catch(() => undefined)));
}
