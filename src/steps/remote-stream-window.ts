import { remoteChunkKey } from '../orchestration/remote-sub-agents.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager, StreamWriter } from '../stream/stream-manager.js';
import type { RemoteAgentTransport } from '../types/remote.js';

/** How often a window looks at the parent's interrupt flag and its ref (abort), in ms. */
const WATCH_EVERY_MS = 200;
/** Progress (flushed proxied chunks → ref.remote.lastSequence) is recorded at most this often while streaming, in ms. */
const RECORD_EVERY_MS = 1_000;

/**
 * What one stream window did: the last remote sequence proxied (and recorded), and whether the parent asked to
 * interrupt or abort (both already forwarded to the remote server), and whether the remote server ended the
 * stream itself (it ends it after the run's last chunk). The caller then asks `getStatus()`.
 */
export interface WindowProgress {
  lastSequence: number;
  interruptSent: boolean;
  abortSent: boolean;
  streamEnded: boolean;
}

/** What a stream window works with. */
export interface WindowInput {
  transport: RemoteAgentTransport;
  remoteSessionId: string;
  fromSequence: number;
  windowMs: number;
  streamManager: StreamManager;
  stateStore: SessionStateStore;
  /** The parent's stream, session and the ref's status reader. */
  streamId: string;
  parentSessionId: string;
  /** The parent's step that called the remote agent: every proxied chunk carries it. */
  parentStep: number;
  refTerminated(): Promise<boolean>;
  /** Records the last proxied sequence (after its chunks are flushed). */
  record(lastSequence: number): Promise<void>;
}

/**
 * Read the remote stream from `fromSequence` for at most `windowMs` and proxy every chunk into the parent's stream
 * under the key `remote:${remoteSessionId}:${sequence}` (a re-run window stores nothing twice), keeping each
 * chunk's own agent identity and stamping it with the parent's step. Meanwhile it forwards the parent's interrupt
 * flag (`transport.interrupt`) and an abort of the parent (its ref turned `terminated`: `transport.abort`), and
 * records progress (flushed, then `lastSequence`) at most every second.
 */
export async function proxyStreamWindow(input: WindowInput): Promise<WindowProgress> {
  const progress: WindowProgress = { lastSequence: input.fromSequence, interruptSent: false, abortSent: false, streamEnded: false };
  // One writer for every proxied chunk, whatever its agent (a chunk keeps its own agentId): the parent's stream
  // gets them in the remote order.
  let writer: Promise<StreamWriter> | undefined;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), input.windowMs);
  let written = input.fromSequence;
  let recorded = input.fromSequence;
  let recordedAt = Date.now();
  let suspended = false;
  const flushAndRecord = async (): Promise<void> => {
    const upTo = written;
    if (writer !== undefined) await (await writer).flush();
    if (upTo > recorded) {
      await input.record(upTo);
      recorded = upTo;
    }
  };
  let watching = true;
  const watch = (async () => {
    while (watching) {
      await new Promise<void>((resolve) => setTimeout(resolve, WATCH_EVERY_MS).unref());
      if (!watching) return;
      if (!progress.abortSent && (await input.refTerminated().catch(() => false))) {
        progress.abortSent = true;
        await input.transport.abort(input.remoteSessionId, 'The parent run was aborted.').catch(() => undefined);
        controller.abort();
        return;
      }
      if (!progress.interruptSent && (await input.stateStore.isInterruptRequested(input.parentSessionId).catch(() => false))) {
        progress.interruptSent = true;
        await input.transport.interrupt(input.remoteSessionId, 'The parent run was interrupted.').catch(() => undefined);
      }
    }
  })();
  try {
    for await (const chunk of input.transport.stream(input.remoteSessionId, { fromSequence: input.fromSequence, signal: controller.signal })) {
      if (chunk.sequence <= written) continue;
      const { sequence, ...remoteBody } = chunk;
      // Stamped with the parent's step (readers group chunks by the parent's steps). A remote step_reset would name
      // a remote step number, so it is not proxied.
      const body = { ...remoteBody, step: input.parentStep };
      // Only the remote session's own chunks (and its sub-agents', `${remote}-sub-…`): a remote server cannot write
      // under the parent's identity (e.g. a fake terminal chunk of the parent).
      if (body.type === 'step_reset' || !ownedByRemote(body.agentId, input.remoteSessionId)) {
        written = sequence;
        progress.lastSequence = sequence;
        continue;
      }
      writer ??= input.streamManager.createWriter(input.streamId, input.remoteSessionId, body.agentType);
      await (await writer).write(body, { key: remoteChunkKey(input.remoteSessionId, sequence) });
      written = sequence;
      progress.lastSequence = sequence;
      // Writes and flushes stay on this one path (a writer is not shared by concurrent callers).
      if (Date.now() - recordedAt >= RECORD_EVERY_MS) {
        recordedAt = Date.now();
        await flushAndRecord();
      }
      // The remote run now waits for a human: stop here and let getStatus() decide (a client tool fails the call).
      if (chunk.type === 'run_suspended') {
        suspended = true;
        break;
      }
    }
    progress.streamEnded = !suspended && !controller.signal.aborted;
  } catch (error) {
    // An unreachable server ends the window; getStatus() then tells unreachable from finished.
    if ((error as { code?: unknown }).code !== 'REMOTE_TRANSPORT_ERROR' && !controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    watching = false;
    await watch;
  }
  await flushAndRecord();
  if (writer !== undefined) await (await writer).close().catch(() => undefined);
  return progress;
}

/** True for the remote session's own agent id and its sub-agents' (`${remote}-…`). */
function ownedByRemote(agentId: unknown, remoteSessionId: string): boolean {
  return typeof agentId === 'string' && (agentId === remoteSessionId || agentId.startsWith(`${remoteSessionId}-`));
}
