import type { HookManager } from './hook-manager.js';

/**
 * Process-local map from DBOS workflow id to the run's merged `HookManager`. The executor registers the
 * manager before starting a workflow; steps look it up and fall back to the executor's own manager when a
 * workflow was recovered by a process that never registered it.
 *
 * @example
 * const registry = new HookManagerRegistry();
 * registry.register(workflowId, mergeHookManagers(executorManager, agent.hooks));
 * const manager = registry.resolve(workflowId, executorManager);
 */
export class HookManagerRegistry {
  private readonly managers = new Map<string, HookManager>();

  /** Register (or replace) the manager of a workflow. */
  register(workflowId: string, manager: HookManager): void {
    this.managers.set(workflowId, manager);
  }

  /** The workflow's manager, or `fallback` when none is registered in this process. */
  resolve(workflowId: string, fallback: HookManager): HookManager {
    return this.managers.get(workflowId) ?? fallback;
  }

  /** The workflow's manager, if registered. */
  get(workflowId: string): HookManager | undefined {
    return this.managers.get(workflowId);
  }

  /** Forget every workflow's manager (the executor's `close()`). */
  clear(): void {
    this.managers.clear();
  }

  /** Forget a workflow's manager (call when the workflow ends). */
  unregister(workflowId: string): void {
    this.managers.delete(workflowId);
  }

  /** Number of registered workflows. */
  get size(): number {
    return this.managers.size;
  }
}
