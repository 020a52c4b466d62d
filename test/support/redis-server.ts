import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, waitFor } from './free-port.js';

/** A redis-server of a test's own (never the shared one), which the test may stop and start again. */
export interface OwnRedisServer {
  url: string;
  port: number;
  /** Start (again) on the same port and data dir; resolves once it answers PING. */
  start(): Promise<void>;
  /** Shut down gracefully (SIGTERM: the AOF is flushed); resolves once the process exited. */
  stop(): Promise<void>;
  /** Stop and delete the data dir. */
  destroy(): Promise<void>;
}

/**
 * Start a `redis-server` on a free loopback port with its data in `.test-services/<name>-<pid>`, AOF on
 * with `appendfsync always`, so a restart keeps every acknowledged write.
 */
export async function startOwnRedisServer(name: string): Promise<OwnRedisServer> {
  const port = await freePort();
  const dir = resolve('.test-services', `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const ping = async (): Promise<boolean> => {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } finally {
      probe.disconnect();
    }
  };
  const server: OwnRedisServer = {
    url,
    port,
    async start() {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''];
      child = spawn('redis-server', args, { stdio: 'ignore' });
      await waitFor(ping, 10_000, 'the test redis-server to answer PING', 20);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null) return;
      await new Promise<void>((done) => {
        running.once('exit', () => done());
        running.kill('SIGTERM');
      });
    },
    async destroy() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
