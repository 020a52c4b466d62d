import { randomUUID } from 'node:crypto';
import { DBOS, type DLogger } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, defineAgent, withIdleTransactionTimeout, type AnyAgentConfig, type SessionStateStore, type StreamManager } from '../../index.js';
import { CliConnectionError } from '../cli-errors.js';
import { safeText } from '../error-report.js';

/**
 * Every executor id the CLI launches DBOS under starts with this; the rest is a fresh UUID per process.
 *
 * @example
 * DBOS.executorID.startsWith(CLI_EXECUTOR_ID_PREFIX); // true inside a CLI process that launched DBOS
 */
export const CLI_EXECUTOR_ID_PREFIX = 'helix-cli-';

/**
 * A fresh executor id for one CLI process: never `local` nor any worker's id, so `DBOS.launch()` recovers no one
 * else's pending workflows (DBOS recovers the PENDING workflows of the launching executor id).
 *
 * @example
 * operatorExecutorId(); // 'helix-cli-1b4e28ba-2fa1-41d2-883f-0016d3cca427'
 */
export function operatorExecutorId(): string {
  return `${CLI_EXECUTOR_ID_PREFIX}${randomUUID()}`;
}

/**
 * What the CLI needs to launch DBOS for the operations that cancel, wake or delete workflows.
 *
 * @example
 * const options: OperatorRuntimeOptions = { stateStore, streamManager, systemDatabaseUrl: process.env.DATABASE_URL! };
 */
export interface OperatorRuntimeOptions {
  stateStore: SessionStateStore;
  streamManager: StreamManager;
  systemDatabaseUrl: string;
  /** Where DBOS's warnings and errors go (`--verbose`); dropped when absent. */
  log?: (line: string) => void;
}

/**
 * DBOS launched for control operations only: a `DBOSAgentExecutor` without an LLM adapter, DBOS under a CLI-only
 * executor id (`helix-cli-<uuid>`), its own application version and `listenQueues: []` — it recovers nothing and
 * dequeues nothing, so it never runs an agent. Interrupt, abort and submit go through the executor's public API
 * (handles of a name-only agent: none of them runs the agent); prune through `pruneFinishedSessions`.
 *
 * @example
 * const runtime = await OperatorRuntime.launch({ stateStore, streamManager, systemDatabaseUrl });
 * await (await runtime.executor.getHandle(runtime.handleAgent('assistant'), 's1'))?.abort('stuck');
 * await runtime.shutdown();
 */
export class OperatorRuntime {
  private readonly agents = new Map<string, AnyAgentConfig>();

  private constructor(
    readonly executor: DBOSAgentExecutor,
    readonly executorId: string,
  ) {}

  /**
   * Construct the executor and launch DBOS (see the class).
   *
   * @throws CliConnectionError `CLI_CONNECTION_FAILED` when DBOS cannot launch on the system database.
   * @example
   * const runtime = await OperatorRuntime.launch({ stateStore, streamManager, systemDatabaseUrl });
   */
  static async launch(options: OperatorRuntimeOptions): Promise<OperatorRuntime> {
    const executor = new DBOSAgentExecutor({ stateStore: options.stateStore, streamManager: options.streamManager, telemetry: false });
    const executorId = operatorExecutorId();
    DBOS.setConfig({
      name: 'helix-agents-cli',
      systemDatabaseUrl: withIdleTransactionTimeout(options.systemDatabaseUrl),
      systemDatabasePoolSize: 4,
      executorID: executorId,
      applicationVersion: 'helix-agents-cli',
      listenQueues: [],
      logger: quietLogger(options.log),
    });
    try {
      await DBOS.launch();
    } catch (error) {
      await DBOS.shutdown().catch(() => undefined);
      throw new CliConnectionError(`Could not launch DBOS on its system database (${error instanceof Error ? error.name : 'error'}); check DBOS_SYSTEM_DATABASE_URL / DATABASE_URL.`, { cause: error });
    }
    options.log?.(`DBOS launched under executor id ${executorId} (recovers nothing, listens to no queue).`);
    return new OperatorRuntime(executor, executorId);
  }

  /**
   * A name-only agent for the executor's handles of sessions of `agentType` (its handles interrupt and abort;
   * it never runs: this process recovers and dequeues nothing).
   *
   * @example
   * const handle = await runtime.executor.getHandle(runtime.handleAgent(state.agentType), state.sessionId);
   */
  handleAgent(agentType: string): AnyAgentConfig {
    let agent = this.agents.get(agentType);
    if (agent === undefined) {
      agent = defineAgent({ name: agentType, systemPrompt: 'A handle of the operator CLI; never run.' }) as AnyAgentConfig;
      this.agents.set(agentType, agent);
    }
    return agent;
  }

  /**
   * Close the executor, then shut DBOS down.
   *
   * @example
   * await runtime.shutdown();
   */
  async shutdown(): Promise<void> {
    await this.executor.close({ timeoutMs: 1_000 });
    await DBOS.shutdown();
  }
}

function quietLogger(log: ((line: string) => void) | undefined): DLogger {
  const write = (level: string, entry: unknown): void => log?.(`dbos ${level}: ${safeText(entry instanceof Error ? `${entry.name}: ${entry.message}` : String(entry))}`);
  return {
    info: () => undefined,
    debug: () => undefined,
    warn: (entry) => write('warn', entry),
    error: (entry) => write('error', entry),
  };
}
