import { BenchChild } from '../bench-child.js';
import { FLEET_PROTOCOL, type FleetChildConfig, type FleetCommand, type FleetReply } from './fleet-protocol.js';

/**
 * A fleet child (fleet-child.ts) in one role on one configuration's database, asked one command at a time.
 *
 * @example
 * const worker = await FleetProcess.start({ role: 'worker', databaseUrl, executorId: 'worker-1', pollingMs: 10 });
 * const { toolCalls } = await worker.ask({ type: 'counts', label: 'round-1' }, 'counts');
 */
export type FleetProcess = BenchChild<FleetCommand, FleetReply>;

/**
 * Start fleet children.
 *
 * @example
 * const api = await FleetProcess.start({ role: 'api', databaseUrl, executorId: 'api' });
 */
export const FleetProcess = {
  /**
   * Spawn a child with `config` and wait until it is set up (a worker: its queue registered).
   *
   * @throws Error when the child fails first (its stderr tail is in the message).
   */
  start(config: FleetChildConfig): Promise<FleetProcess> {
    // HELIX_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each child there (named by pid; the child's role is in its config).
    const profile = process.env.HELIX_BENCH_CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.HELIX_BENCH_CPU_PROF}`];
    return BenchChild.start<FleetCommand, FleetReply>({
      name: `The fleet ${config.role} child ${config.executorId}`,
      script: 'bench/fleet/fleet-child.ts',
      nodeOptions: profile,
      env: { ...process.env, FLEET_CHILD_CONFIG: JSON.stringify(config) },
      protocol: FLEET_PROTOCOL,
    });
  },
};
