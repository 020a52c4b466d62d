/**
 * The crash-drill kit's entry: `useDrill(prefix, options)` registers a test file's beforeAll/afterAll and returns
 * its drill — the file's database, the parent's store/stream/usage views of it, the fake OpenAI server, the worker
 * registry and, on request, the control plane and the uncrashed baseline results. A test file keeps its scenario.
 */
import { afterAll, beforeAll } from 'vitest';
import type { AgentResult } from '../../../src/types/result.js';
import { launchControlPlane, type ControlPlane } from './control-plane.js';
import { openDrillEnvironment, type DrillEnvironment, type OpenedDrillEnvironment } from './drill-environment.js';
import { runToCompletion } from './drill-flow.js';
import type { DrillScenario } from './drill-scenarios.js';
import { WorkerProcesses } from './worker-process.js';

/**
 * A session the fake server answers: its id, its scenario and whether it is a crash session (default: not).
 *
 * @example
 * const session: DrillSession = ['tool-drill', DRILL_SCENARIOS.toolCrash, { crash: true }];
 */
export type DrillSession = readonly [sessionId: string, scenario: DrillScenario, options?: { crash: boolean }];

/**
 * What a drill file sets up besides the database and services.
 *
 * @example
 * const options: DrillOptions = { controlPlane: true, sessions: [['s1', HITL_SCENARIOS.clientOnly]], setupTimeoutMs: 60_000 };
 */
export interface DrillOptions {
  /** Registered with the fake server before any worker starts. */
  sessions?: Iterable<DrillSession>;
  /** SQL creating the file's own tables (run after the migrations). */
  tables?: string;
  /** Launch the parent's DBOS control plane (`drill.control`). */
  controlPlane?: boolean;
  /** Sessions registered (not crash) and run to completion by one worker before the tests (`drill.baseline(sessionId)`). */
  baselines?: { executorId: string; sessions: Array<readonly [sessionId: string, scenario: DrillScenario]> };
  /** More set-up, after the sessions are registered and before the baselines run. */
  prepare?: () => Promise<void>;
  /** More tear-down, first thing after the tests (before the workers are killed and the database dropped). */
  release?: () => Promise<void>;
  /** Bound of the whole set-up. Default 90 s. */
  setupTimeoutMs?: number;
}

/**
 * A test file's drill. Read its members inside tests and hooks, not at import.
 *
 * @example
 * const env: Drill = useDrill('crash_tools', { sessions: [['tool-drill', DRILL_SCENARIOS.toolCrash, { crash: true }]] });
 */
export interface Drill extends DrillEnvironment {
  /** The control plane (`controlPlane: true` only). */
  readonly control: ControlPlane;
  /** The uncrashed result of a baseline session. */
  readonly baseline: (sessionId: string) => AgentResult;
  /** `SELECT count(*) …` on the parent's connection, as a number. */
  readonly count: (sql: string, parameters?: unknown[]) => Promise<number>;
}

/**
 * Register the hooks of a drill file: beforeAll opens the environment (database, services, fake server), launches
 * the control plane, registers the sessions, runs `prepare` and the baselines; afterAll runs `release`, kills every
 * worker still alive, shuts the control plane down, releases the services and drops the database.
 *
 * @example
 * const env = useDrill('crash_hitl_kill', { controlPlane: true, sessions: [['kill-client', HITL_SCENARIOS.mixedBatch]], setupTimeoutMs: 60_000 });
 */
export function useDrill(prefix: string, options: DrillOptions = {}): Drill {
  const workers = new WorkerProcesses();
  const baselines = new Map<string, AgentResult>();
  let opened: OpenedDrillEnvironment | undefined;
  let control: ControlPlane | undefined;
  const ready = (): OpenedDrillEnvironment => {
    if (opened === undefined) throw new Error(`the drill ${prefix} is read before its beforeAll hook ran`);
    return opened;
  };
  const drill: Drill = {
    get database() { return ready().database; },
    get pool() { return ready().pool; },
    get stateStore() { return ready().stateStore; },
    get streamManager() { return ready().streamManager; },
    get usageStore() { return ready().usageStore; },
    get llm() { return ready().llm; },
    workers,
    workerConfig: (mode, sessions, workerOptions) => ready().workerConfig(mode, sessions, workerOptions),
    get control() {
      if (control === undefined) throw new Error('the control plane did not launch');
      return control;
    },
    baseline: (sessionId) => {
      const result = baselines.get(sessionId);
      if (result === undefined) throw new Error(`no baseline result for ${sessionId}`);
      return result;
    },
    count: async (sql, parameters = []) => Number((await ready().pool.query<{ count: string }>(sql, parameters)).rows[0]?.count ?? 0),
  };
  beforeAll(async () => {
    opened = await openDrillEnvironment(prefix, workers, options.tables);
    if (options.controlPlane === true) control = await launchControlPlane(drill);
    const { executorId, sessions: baselineSessions = [] } = options.baselines ?? {};
    for (const [sessionId, scenario, session = { crash: false }] of [...(options.sessions ?? []), ...baselineSessions]) opened.llm.register(sessionId, scenario, session);
    await options.prepare?.();
    if (executorId !== undefined) {
      const results = await runToCompletion(drill, executorId, baselineSessions.map(([sessionId]) => sessionId));
      for (const [sessionId, result] of results) baselines.set(sessionId, result);
    }
  }, options.setupTimeoutMs ?? 90_000);
  afterAll(async () => {
    await options.release?.();
    await workers.killAll();
    await control?.shutdown();
    await opened?.close();
  });
  return drill;
}
