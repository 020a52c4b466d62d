import type { UsageRecord, UsageSummary } from '../../types/usage.js';
import type { Checkpoint, RunRecord } from '../../types/session.js';
import { summarizeUsage } from '../../usage/summarize.js';
import { CONSOLE_LIMITS, type ConsoleCheckpointView, type ConsoleRunView } from './console-api.js';
import { consoleError } from './console-values.js';
import { runSummary } from './console-state.js';

/**
 * The latest `CONSOLE_LIMITS.runs` runs in turn order, each with its duration, the run it continues
 * (`previousRunId`), the session's following run (`nextRunId`) and its usage (`null` without usage records).
 *
 * @example
 * const runs = runTimeline(sortedRuns, records);
 */
export function runTimeline(runs: readonly RunRecord[], records: readonly UsageRecord[] | null): ConsoleRunView[] {
  const byRun = new Map<string, UsageRecord[]>();
  for (const record of records ?? []) {
    const list = byRun.get(record.runId);
    if (list === undefined) byRun.set(record.runId, [record]);
    else list.push(record);
  }
  return runs.slice(-CONSOLE_LIMITS.runs).map((run) => {
    const error = consoleError(run.error);
    const next = runs.find((other) => other.turn === run.turn + 1);
    return {
      ...runSummary(run),
      ...(error === undefined ? {} : { error }),
      durationMs: run.endedAt === undefined ? null : Math.max(0, run.endedAt - run.startedAt),
      ...(run.previousRunId === undefined ? {} : { previousRunId: run.previousRunId }),
      ...(next === undefined ? {} : { nextRunId: next.runId }),
      stepCount: run.stepCount,
      usage: records === null ? null : summarizeUsage(byRun.get(run.runId) ?? []),
    };
  });
}

/**
 * A session's usage from its records (`null` without a usage store).
 *
 * @example
 * const usage = sessionUsage(await usageStore.listRecords('s1'));
 */
export function sessionUsage(records: readonly UsageRecord[] | null): UsageSummary | null {
  return records === null ? null : summarizeUsage(records);
}

/**
 * The latest `CONSOLE_LIMITS.checkpoints` checkpoints, oldest first, each with the top-level custom-state keys whose
 * value differs from the checkpoint before it (every key for the first one), at most `CONSOLE_LIMITS.changedKeys`.
 *
 * @example
 * const views = checkpointTimeline(await stateStore.listCheckpoints('s1'));
 */
export function checkpointTimeline(checkpoints: readonly Checkpoint[]): ConsoleCheckpointView[] {
  const sorted = [...checkpoints].sort((left, right) => left.createdAt - right.createdAt || left.stepCount - right.stepCount);
  const first = Math.max(0, sorted.length - CONSOLE_LIMITS.checkpoints);
  return sorted.slice(first).map((checkpoint, index) => ({
    id: checkpoint.id,
    runId: checkpoint.runId,
    stepCount: checkpoint.stepCount,
    messageCount: checkpoint.messageCount,
    createdAt: checkpoint.createdAt,
    changedKeys: changedKeys(sorted[first + index - 1]?.customState, checkpoint.customState),
  }));
}

function changedKeys(before: Record<string, unknown> | undefined, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changed = [...keys].filter((key) => before === undefined || JSON.stringify(before[key]) !== JSON.stringify(after?.[key]));
  return changed.sort().slice(0, CONSOLE_LIMITS.changedKeys);
}
