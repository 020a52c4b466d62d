import { releaseAllStreamWriters } from '../steps/stream-writers.js';
import { workflowHookManagers, workflowUsageStores } from '../steps/runtime-registry.js';

/**
 * Release the process-local resources runs hold: cached stream writers (flushed, then closed) and the per-run
 * hook-manager and usage-store registrations. Used by `DBOSAgentExecutor.close()`.
 *
 * @example
 * await releaseRuntimeResources();
 */
export async function releaseRuntimeResources(): Promise<void> {
  await releaseAllStreamWriters();
  workflowHookManagers.clear();
  workflowUsageStores.clear();
}
