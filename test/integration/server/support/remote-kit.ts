/**
 * Helpers of the remote sub-agent tests: the remote agent server (a child process on its own database), HTTP
 * calls against any agent server as alice, and the comparison that proves remote chunks reached the parent's
 * stream exactly once (the parent's proxied chunks equal the remote stream's chunks, in order, once each).
 */
import { expect } from 'vitest';
import type { StreamManager } from '../../../../src/stream/stream-manager.js';
import type { StreamChunk } from '../../../../src/types/stream.js';
import { createTestDatabase, type TestDatabase } from '../../../support/services.js';
import { readSse } from './server-kit.js';
import { spawnServerProcess, type ServerProcess } from './server-spawn.js';

/** `fetch` an agent server as alice (JSON body → POST): the JSON answer plus `http`, the HTTP status. */
export async function callAs(baseUrl: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: 'Bearer token-alice', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { ...(text.startsWith('{') ? (JSON.parse(text) as object) : {}), http: response.status };
}

/** The remote agent server: a process serving `assistant` on its own database; `restart()` brings it back on the same port. */
export interface RemoteServer {
  database: TestDatabase;
  process: ServerProcess;
  url: string;
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Start the remote agent server process (DBOS executor id `remote-server`). */
export async function startRemoteServer(prefix: string): Promise<RemoteServer> {
  const database = await createTestDatabase(prefix);
  const first = await spawnServerProcess({ databaseUrl: database.url, lifetimeMs: 300_000 }, 'remote-server');
  const remote: RemoteServer = {
    database,
    process: first,
    url: first.url,
    restart: async () => {
      remote.process = await spawnServerProcess({ databaseUrl: database.url, port: first.port, lifetimeMs: 300_000 }, 'remote-server');
    },
    close: async () => {
      await remote.process.stop();
      await database.drop();
    },
  };
  return remote;
}

/** Every chunk of a stream from the start (reads until the stream has no chunk after `lastSequence`). */
export async function chunksOf(streamManager: StreamManager, streamId: string): Promise<StreamChunk[]> {
  const info = await streamManager.getInfo(streamId);
  const chunks: StreamChunk[] = [];
  if (info === null || info.lastSequence === 0) return chunks;
  const reader = await streamManager.createReader(streamId, 0);
  try {
    for await (const chunk of reader) {
      chunks.push(chunk);
      if (chunk.sequence >= info.lastSequence) break;
    }
  } finally {
    await reader.close();
  }
  return chunks;
}

/**
 * Assert the remote session's chunks (read over its server's /sse from 0) appear in the parent's stream exactly
 * once each, in order, unchanged but for their sequence and step (proxied chunks carry the parent's step; remote
 * `step_reset` chunks are not proxied). Returns how many there were.
 */
export async function expectProxiedOnce(parentStream: StreamManager, parentStreamId: string, remoteUrl: string, remoteSessionId: string): Promise<number> {
  const remote = (await readSse(await fetch(`${remoteUrl}/sse?sessionId=${remoteSessionId}&fromSequence=0`, { headers: { authorization: 'Bearer token-alice' } })))
    .map((event) => event.data as StreamChunk)
    .filter((chunk) => chunk.type !== 'step_reset');
  const remoteIds = new Set(remote.map((chunk) => chunk.agentId));
  const proxied = (await chunksOf(parentStream, parentStreamId)).filter((chunk) => remoteIds.has(chunk.agentId));
  const strip = ({ sequence: _sequence, step: _step, ...rest }: StreamChunk): Omit<StreamChunk, 'sequence' | 'step'> => rest;
  expect(remote.length).toBeGreaterThan(0);
  expect(proxied.map(strip)).toEqual(remote.map(strip));
  return remote.length;
}
