import type { StreamChunk } from '../types/stream.js';

/** Chunk types that end a run when its own agent writes them. */
const RUN_ENDING_TYPES: ReadonlySet<StreamChunk['type']> = new Set<StreamChunk['type']>(['output', 'error', 'run_interrupted']);

/**
 * Whether `chunk` ends the run of the agent whose id (its session id) is `agentId`: its output, its error (failed or
 * aborted) or its interruption, written by that agent itself (a sub-agent's own end is not its parent's).
 *
 * @example
 * for await (const chunk of reader) {
 *   yield chunk;
 *   if (endsRun(chunk, sessionId)) return;
 * }
 */
export function endsRun(chunk: Pick<StreamChunk, 'type' | 'agentId'>, agentId: string): boolean {
  return chunk.agentId === agentId && RUN_ENDING_TYPES.has(chunk.type);
}
