import { noopLogger } from './logger.js';
import type { AgentHooks, HookName, Logger } from './types.js';

/**
 * The event type a hook receives.
 *
 * @example
 * const event: HookEvent<'afterTool'> = { sessionId, runId, agentType, toolCallId, toolName, input: {} };
 */
export type HookEvent<TName extends HookName> = Parameters<NonNullable<AgentHooks[TName]>>[0];

/**
 * Options of `HookManager`.
 *
 * @example
 * new HookManager({ logger: consoleLogger, hooks: [tracingHooks] });
 */
export interface HookManagerOptions {
  /** Where failing hooks are reported. Default `noopLogger`. */
  logger?: Logger;
  /** Hook sets to register, in order. */
  hooks?: readonly AgentHooks[];
}

/**
 * Holds any number of `AgentHooks` sets and fires them. `fire` calls every set's handler in registration
 * order, awaiting each; a handler that throws (or rejects) is logged and skipped, so hooks never fail a run.
 *
 * @example
 * const manager = new HookManager({ logger: consoleLogger });
 * manager.register({ afterTool: ({ toolName }) => metrics.increment(toolName) });
 * await manager.fire('afterTool', { sessionId, runId, agentType, toolCallId, toolName: 'search', input: {} });
 */
export class HookManager {
  readonly logger: Logger;
  private readonly registered: AgentHooks[] = [];

  constructor(options: HookManagerOptions = {}) {
    this.logger = options.logger ?? noopLogger;
    for (const hooks of options.hooks ?? []) this.register(hooks);
  }

  /** Add a hook set after the ones already registered. Returns a function that removes it again. */
  register(hooks: AgentHooks): () => void {
    this.registered.push(hooks);
    return () => {
      const index = this.registered.indexOf(hooks);
      if (index !== -1) this.registered.splice(index, 1);
    };
  }

  /** The registered hook sets, in order. */
  getHooks(): readonly AgentHooks[] {
    return [...this.registered];
  }

  /** True when at least one registered set handles `name` (or any hook, when `name` is omitted). */
  hasHooks(name?: HookName): boolean {
    if (name === undefined) return this.registered.length > 0;
    return this.registered.some((hooks) => typeof hooks[name] === 'function');
  }

  /** Call every registered `name` handler in order, awaiting each; throws are logged, never rethrown. */
  async fire<TName extends HookName>(name: TName, event: HookEvent<TName>): Promise<void> {
    for (const [index, hooks] of [...this.registered].entries()) {
      const handler = hooks[name] as ((this: AgentHooks, event: HookEvent<TName>) => unknown) | undefined;
      if (typeof handler !== 'function') continue;
      try {
        await handler.call(hooks, event);
      } catch (error) {
        this.logger.error('hook.failed', {
          hook: name,
          hookIndex: index,
          sessionId: event.sessionId,
          runId: event.runId,
          agentType: event.agentType,
          errorName: error instanceof Error ? error.name : typeof error,
        });
        this.logger.debug?.('hook.failed.detail', { hook: name, hookIndex: index, error });
      }
    }
  }
}
