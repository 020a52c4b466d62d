import { DBOS } from '@dbos-inc/dbos-sdk';
import type { SessionStateStore, UsageStore } from '../../src/index.js';
import { formatTable } from './format-table.js';
import type { ToolExecutionLog } from './tool-execution-log.js';

/**
 * Where the durable record of a session lives.
 *
 * @example
 * const sources: DurableRecordSources = { stateStore, usageStore, toolLog };
 */
export interface DurableRecordSources {
  stateStore: SessionStateStore;
  usageStore: UsageStore;
  toolLog: ToolExecutionLog;
}

/**
 * Render what Postgres durably holds about a session: its runs, the DBOS steps of its latest run's
 * workflow, its checkpoints, the latest run's usage and the tools' side record of executions.
 *
 * @example
 * console.log(await renderDurableRecord({ stateStore, usageStore, toolLog }, 'trip-1'));
 */
export async function renderDurableRecord(sources: DurableRecordSources, sessionId: string): Promise<string> {
  const { stateStore, usageStore, toolLog } = sources;
  const { runs } = await stateStore.listRuns(sessionId);
  const latest = runs.at(-1);
  const sections: string[] = [`Durable record of session ${sessionId}`];

  sections.push(
    section(
      'Runs (stateStore.listRuns)',
      formatTable(
        ['turn', 'run', 'status', 'reason', 'steps', 'ms', 'workflow id'],
        runs.map((run) => [run.turn, run.runId, run.status, run.completionReason ?? '', run.stepCount, run.endedAt === undefined ? '' : run.endedAt - run.startedAt, run.workflowId ?? '']),
      ),
    ),
  );

  if (latest?.workflowId !== undefined) {
    const steps = (await DBOS.listWorkflowSteps(latest.workflowId)) ?? [];
    sections.push(
      section(
        `DBOS steps of workflow ${latest.workflowId} (DBOS.listWorkflowSteps)`,
        formatTable(
          ['#', 'step', 'ms', 'recorded output'],
          steps.map((step) => [
            step.functionID,
            step.name,
            step.startedAtEpochMs !== undefined && step.completedAtEpochMs !== undefined ? step.completedAtEpochMs - step.startedAtEpochMs : '',
            step.error === null ? summarizeStepOutput(step.output) : `error: ${step.error.name}`,
          ]),
        ),
      ),
    );
  }

  const checkpoints = await stateStore.listCheckpoints(sessionId);
  sections.push(
    section(
      'Checkpoints (stateStore.listCheckpoints)',
      formatTable(
        ['checkpoint', 'step', 'messages', 'state'],
        checkpoints.map((checkpoint) => [checkpoint.id, checkpoint.stepCount, checkpoint.messageCount, summarizeState(checkpoint.customState)]),
      ),
    ),
  );

  if (latest !== undefined) {
    const usage = await usageStore.getRunUsage(sessionId, latest.runId);
    sections.push(
      section(
        `Usage of run ${latest.runId} (PostgresUsageStore.getRunUsage)`,
        formatTable(
          ['llm calls', 'input tokens', 'output tokens', 'total tokens', 'tool calls', 'tool failures', 'tool ms'],
          [[usage.llmCalls, usage.inputTokens, usage.outputTokens, usage.totalTokens, usage.toolCalls, usage.toolFailures, usage.toolDurationMs]],
        ),
      ),
    );
  }

  const counts = await toolLog.counts(sessionId);
  sections.push(
    section(
      'Tool executions (the tools\' own side record, table demo_tool_executions)',
      formatTable(['tool', 'calls', 'started', 'finished'], counts.map((count) => [count.toolName, count.calls, count.started, count.finished])),
    ),
  );
  const cutOff = counts.filter((count) => count.started > count.finished).map((count) => count.toolName);
  if (cutOff.length > 0) {
    sections.push(`Executions of ${cutOff.join(', ')} that started but never finished were cut off by a crash, so DBOS ran them again;\ntools whose steps had completed were not run again.`);
  }
  return sections.join('\n\n');
}

function section(title: string, body: string): string {
  return `== ${title}\n${body}`;
}

/** One line about a recorded step output (the agent runtime's steps return small JSON objects). */
function summarizeStepOutput(output: unknown): string {
  if (typeof output !== 'object' || output === null) return output === undefined ? '' : JSON.stringify(output);
  const value = output as Record<string, any>;
  if (value.kind === 'result' && typeof value.result === 'object') {
    const calls: Array<{ name: string }> = value.result.toolCalls ?? [];
    return `LLM: ${String(value.result.text ?? '').length} chars of text, ${calls.length === 0 ? 'no tool calls' : `calls ${calls.map((call) => call.name).join(', ')}`}`;
  }
  if (typeof value.toolName === 'string') return `${value.toolName} ${value.success === true ? 'succeeded' : 'failed'} in ${value.durationMs} ms`;
  if (typeof value.version === 'number') return `committed, session version ${value.version}`;
  if (typeof value.completionReason === 'string') return `run ${value.status} (${value.completionReason})`;
  if (value.stepCount === 0) return 'run started, user message appended';
  const text = JSON.stringify(output);
  return text.length <= 60 ? text : `${text.slice(0, 59)}…`;
}

function summarizeState(state: Record<string, unknown>): string {
  return Object.entries(state)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? `${value.length} item(s)` : typeof value === 'object' && value !== null ? Object.keys(value).join(', ') || '{}' : JSON.stringify(value)}`)
    .join('; ');
}
