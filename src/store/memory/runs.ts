import { InvalidArgumentError } from '../../errors/index.js';
import type { CreateRunInput, RunRecord, RunStatus } from '../../types/session.js';
import { cloneJson } from '../../database/json.js';
import { applyRunPatch, buildRunRecord, type RunPatch } from '../record-updates.js';
import type { MemoryData } from './memory-data.js';
import { mayAwaitHuman } from '../open-calls.js';

/**
 * Record a run with the next contiguous turn; an existing runId returns the stored record.
 *
 * @example
 * const run = createMemoryRun(data, 's1', { runId: 'r1', status: 'running', stepCount: 0, startSequence: 0, startedAt: Date.now() });
 */
export function createMemoryRun(data: MemoryData, sessionId: string, input: CreateRunInput): RunRecord {
  const record = data.require(sessionId);
  const existing = record.runs.find((run) => run.runId === input.runId);
  if (existing !== undefined) return cloneJson(existing, 'run');
  const run = buildRunRecord(sessionId, input, record.runs.length + 1);
  record.runs.push(run);
  return cloneJson(run, 'run');
}

/**
 * Update a run's status and fields; with `from`, only while its status is one of them. True when it wrote; throws
 * InvalidArgumentError for an unknown runId.
 *
 * @example
 * updateMemoryRunStatus(data, 's1', 'r1', 'completed', { endedAt: Date.now() });
 */
export function updateMemoryRunStatus(
  data: MemoryData,
  sessionId: string,
  runId: string,
  status: RunStatus,
  patch?: RunPatch,
  from?: readonly RunStatus[],
): boolean {
  const record = data.require(sessionId);
  const index = record.runs.findIndex((run) => run.runId === runId);
  const run = record.runs[index];
  if (run === undefined) throw new InvalidArgumentError('runId does not name a run of this session; create it with createRun first.', { field: 'runId' });
  if (from !== undefined && !from.includes(run.status)) return false;
  record.runs[index] = applyRunPatch(run, status, patch);
  return true;
}

/**
 * The run with the highest turn, or null.
 *
 * @example
 * const current = getMemoryCurrentRun(data, 's1');
 */
export function getMemoryCurrentRun(data: MemoryData, sessionId: string): RunRecord | null {
  const run = data.find(sessionId)?.runs.at(-1);
  return run === undefined ? null : cloneJson(run, 'run');
}

/**
 * Every run in turn order.
 *
 * @example
 * const { runs } = listMemoryRuns(data, 's1');
 */
export function listMemoryRuns(data: MemoryData, sessionId: string): { runs: RunRecord[] } {
  return { runs: cloneJson(data.find(sessionId)?.runs ?? [], 'runs') };
}

/**
 * One run by id, or null.
 *
 * @example
 * const run = getMemoryRun(data, 's1', 'r1');
 */
export function getMemoryRun(data: MemoryData, sessionId: string, runId: string): RunRecord | null {
  const run = data.find(sessionId)?.runs.find((candidate) => candidate.runId === runId);
  return run === undefined ? null : cloneJson(run, 'run');
}

/**
 * `runsWaitingOrAborted`: of `runs`, those recorded `aborted`, and the `running` ones whose session may await a human.
 *
 * @example
 * const look = memoryRunsWaitingOrAborted(data, [{ sessionId: 's1', runId: 'r1' }]);
 */
export function memoryRunsWaitingOrAborted(data: MemoryData, runs: ReadonlyArray<{ sessionId: string; runId: string }>): string[] {
  return runs.flatMap(({ sessionId, runId }) => {
    const record = data.find(sessionId);
    const status = record?.runs.find((run) => run.runId === runId)?.status;
    const look = status === 'aborted' || (status === 'running' && record !== undefined && mayAwaitHuman(record.state));
    return look ? [runId] : [];
  });
}
