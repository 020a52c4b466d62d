import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { dockerLikelyAvailable } from './docker.js';
import { freePort, waitFor } from './free-port.js';

/** A running Redis and its URL. */
export interface ProvisionedRedis {
  url: string;
  source: 'REDIS_URL' | 'testcontainers' | 'redis-server';
  stop(): Promise<void>;
}

/**
 * Provision Redis: `REDIS_URL` if set, else testcontainers when a Docker engine answers, else a
 * `redis-server` binary on PATH (`.ci/run` installs Debian's when missing), on loopback with no persistence.
 */
export async function provisionRedis(log: (line: string) => void = () => {}): Promise<ProvisionedRedis> {
  const fromEnv = process.env.REDIS_URL;
  if (fromEnv) return { url: fromEnv, source: 'REDIS_URL', stop: async () => {} };
  if (dockerLikelyAvailable()) {
    try {
      const { GenericContainer } = await import('testcontainers');
      const container = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
      const url = `redis://${container.getHost()}:${container.getMappedPort(6379)}`;
      return { url, source: 'testcontainers', stop: async () => void (await container.stop()) };
    } catch (error) {
      log(`testcontainers unavailable (${(error as Error).message}); falling back to redis-server`);
    }
  }
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    throw new Error('No Redis available: set REDIS_URL, run a Docker engine, or install redis-server (apt-get install redis-server).');
  }
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'],
    { stdio: 'ignore' },
  );
  await waitFor(() => ping(port), 10_000, 'redis-server to answer PING');
  return {
    url: `redis://127.0.0.1:${port}`,
    source: 'redis-server',
    stop: async () => {
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

async function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(500);
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });
}
