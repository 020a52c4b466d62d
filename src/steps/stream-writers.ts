import type { StreamManager, StreamWriter } from '../stream/stream-manager.js';
import type { StreamChunkInput } from '../types/stream.js';

/** Distributes Omit over the chunk union so each member keeps its own fields. */
type ChunkBody<T> = T extends unknown ? Omit<T, 'agentId' | 'agentType' | 'timestamp' | 'step'> : never;

/** What a step writes: a chunk without its identity fields (filled in from the step's scope). */
export type ChunkPayload = ChunkBody<StreamChunkInput>;

const writers = new Map<string, Promise<StreamWriter>>();

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

  async emit(payload: ChunkPayload): Promise<void> {
    const writer = await this.writer();
    await writer.write({ ...payload, agentId: this.agentId, agentType: this.agentType, step: this.step, timestamp: Date.now() });
  }

  async flush(): Promise<void> {
    await (await this.writer()).flush();
  }

  private async writer(): Promise<StreamWriter> {
    const key = `${this.streamId}\u0000${this.agentId}`;
    let writer = writers.get(key);
    if (writer === undefined || writerOwners.get(key) !== this.streamManager) {
      writer = this.streamManager.createWriter(this.streamId, this.agentId, this.agentType);
      writers.set(key, writer);
      writerOwners.set(key, this.streamManager);
      writer.catch(() => writers.delete(key));
    }
    return writer;
  }
}

const writerOwners = new Map<string, StreamManager>();

/** Flush and forget the cached writer of a stream (when its run ends). */
export async function releaseStreamWriter(streamId: string, agentId: string): Promise<void> {
  const key = `${streamId}\u0000${agentId}`;
  const writer = writers.get(key);
  writers.delete(key);
  writerOwners.delete(key);
  if (writer !== undefined) await (await writer).close().catch(() => undefined);
}
