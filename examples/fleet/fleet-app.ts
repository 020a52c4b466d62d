import type { DBOSConfig } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import { defineAgent, defineTool, withIdleTransactionTimeout } from '../../src/index.js';

/**
 * The DBOS queue the fleet's runs wait on. Worker processes register it (after `DBOS.launch()`); the API process
 * only enqueues on it.
 *
 * @example
 * await DBOS.registerQueue(FLEET_QUEUE, { minPollingIntervalMs: 20, workerConcurrency: 2 });
 */
export const FLEET_QUEUE = 'agents';

/**
 * DBOS executor ids: one per process, so each process recovers only its own runs after a crash.
 *
 * @example
 * DBOS.setConfig({ ...fleetDBOSConfig(url), executorID: FLEET_EXECUTOR_IDS.worker });
 */
export const FLEET_EXECUTOR_IDS = { api: 'fleet-api', worker: 'fleet-worker-1' } as const;

/**
 * Environment variable through which the API process hands its database URL to the worker it spawns.
 *
 * @example
 * const url = process.env[FLEET_DATABASE_URL_ENV];
 */
export const FLEET_DATABASE_URL_ENV = 'FLEET_DATABASE_URL';

/**
 * The DBOS configuration every process of the fleet shares: the same `name` and the same `applicationVersion`
 * (DBOS dequeues only workflows of its own application version). Each process adds its own `executorID`; the API
 * process adds `listenQueues: []` so it never dequeues a run.
 *
 * @example
 * DBOS.setConfig({ ...fleetDBOSConfig(databaseUrl), executorID: FLEET_EXECUTOR_IDS.api, listenQueues: [] });
 */
export function fleetDBOSConfig(databaseUrl: string): DBOSConfig {
  return { name: 'helix-agents-fleet', systemDatabaseUrl: withIdleTransactionTimeout(databaseUrl), applicationVersion: 'helix-fleet-1', logLevel: 'warn' };
}

const FORECASTS: Record<string, { celsius: number; sky: string }> = {
  Lisbon: { celsius: 24, sky: 'sunny' },
  Porto: { celsius: 17, sky: 'rain showers' },
  Oslo: { celsius: 9, sky: 'overcast' },
};

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Weekend forecast for a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, ...(FORECASTS[city] ?? { celsius: 20, sky: 'fair' }) }),
});

/**
 * The fleet's agent. It names the queue, so `execute()` enqueues its runs (in any process) and a worker runs them.
 * Both processes import it: the API process to enqueue, the worker to register and run it.
 *
 * @example
 * const handle = await executor.execute(weatherAgent, 'Weather in Oslo?', { sessionId: 'fleet-1' });
 */
export const weatherAgent = defineAgent({
  name: 'fleet_weather',
  systemPrompt: 'Answer weather questions briefly. Use get_weather.',
  tools: [getWeather],
  queue: FLEET_QUEUE,
  maxSteps: 4,
});
