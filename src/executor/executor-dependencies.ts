import { bindAppDatabase } from '../database/app-database.js';
import { InvalidArgumentError } from '../errors/index.js';
import type { HookManager } from '../hooks/index.js';
import type { Logger } from '../hooks/types.js';
import { bindRuntimeDependencies } from '../steps/runtime-registry.js';
import { resolveToolRetryPolicy } from '../steps/tool-retry-policy.js';
import type { DBOSAgentExecutorConfig } from './types.js';
import { DEFAULT_PERSISTENT_IDLE_TIMEOUT_MS, DEFAULT_PERSISTENT_WARM_WINDOW_MS } from './persistent-sessions.js';
import { DEFAULT_TOOL_ARGUMENT_LIMITS, type ToolArgumentLimits } from '../orchestration/tool-argument-limits.js';
import { QUEUE_NAME_PATTERN } from '../orchestration/queue-placement.js';
import { AgentTelemetry, useTelemetry } from '../telemetry/agent-telemetry.js';

/**
 * The executor's tool-argument limits: the defaults with the given fields over them.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for a limit that is not a positive integer.
 * @example
 * resolveToolArgumentLimits({ maxDepth: 16 }); // { maxDepth: 16, maxBytes: 262144 }
 */
export function resolveToolArgumentLimits(given: Partial<ToolArgumentLimits> | undefined): ToolArgumentLimits {
  const limits = { ...DEFAULT_TOOL_ARGUMENT_LIMITS, ...given };
  for (const field of ['maxDepth', 'maxBytes'] as const) {
    const value = limits[field];
    if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError(`toolArgumentLimits.${field} must be a positive integer.`, { field });
  }
  return limits;
}

/**
 * Bind what every durable step uses from an executor's configuration (stores, streams, model, hooks, logger,
 * tool retry policy and argument limits) and register the app database of transactional tools with DBOS.
 *
 * @throws ConfigurationError `APP_DATABASE_AFTER_LAUNCH` / `APP_DATABASE_NOT_CONFIGURED` for an unusable `appDatabase`.
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for a malformed `queue` name.
 *
 * @example
 * bindExecutorDependencies(config, hookManager, logger);
 */
export function bindExecutorDependencies(config: DBOSAgentExecutorConfig, hookManager: HookManager, logger: Logger): void {
  if (config.queue !== undefined && (typeof config.queue !== 'string' || !QUEUE_NAME_PATTERN.test(config.queue))) {
    throw new InvalidArgumentError('queue must be a DBOS queue name matching ^[A-Za-z0-9_.:-]{1,64}$.', { field: 'queue' });
  }
  if (config.appDatabase !== undefined) bindAppDatabase(config.appDatabase);
  const telemetry = new AgentTelemetry(config.telemetry ?? {});
  const store = config.stateStore;
  if (store.countSessionsAwaitingHumans !== undefined) telemetry.observeWaitingSessions(() => store.countSessionsAwaitingHumans!());
  useTelemetry(telemetry);
  bindRuntimeDependencies({
    stateStore: config.stateStore,
    streamManager: config.streamManager,
    ...(config.llmAdapter === undefined ? {} : { llmAdapter: config.llmAdapter }),
    ...(config.usageStore === undefined ? {} : { usageStore: config.usageStore }),
    ...(config.modelLimiter === undefined ? {} : { modelLimiter: config.modelLimiter }),
    hookManager,
    logger,
    toolRetryPolicy: resolveToolRetryPolicy(config.toolRetryPolicy),
    toolArgumentLimits: resolveToolArgumentLimits(config.toolArgumentLimits),
    persistentWindows: {
      idleWarmWindowMs: config.persistentWarmWindowMs ?? DEFAULT_PERSISTENT_WARM_WINDOW_MS,
      idleTimeoutMs: config.defaultPersistentIdleTimeoutMs ?? DEFAULT_PERSISTENT_IDLE_TIMEOUT_MS,
    },
  });
}
