/**
 * The telemetry's own work per agent step, in one process, without DBOS or Postgres: `node --import tsx
 * bench/telemetry/telemetry-micro.ts [configuration] [steps]` (configuration as in telemetry-configurations.ts, default
 * `tracing`; 4,000 steps). Each step is a journaled step as the journal holds one (`afterRecord`, a step context of its
 * own): a chat step (chat span, token and duration records, step duration) or a tool step (tool span, tool duration,
 * step duration), alternately. Prints the median and mean (below the 90th percentile) of two times per step, over the
 * last two thirds of the steps:
 *
 * - **on the step's path**: from the step's start until its record's promise resolved, its spans gone out (what the
 *   workflow waits for before its next statement);
 * - **next turn**: one `setImmediate` after that (the metric records made off the step's path, plus the turn itself).
 *
 * Between steps, work that evicts caches and 1 ms idle (the step's database round trips), so the telemetry runs about
 * as cold as in an agent step. Not the issue's figure (that is `npm run bench`'s telemetry part): a way to compare two
 * versions of `src/telemetry` on a loaded machine, where the bench's wall clock cannot (run each a few times,
 * alternately, with `telemetry: false` beside it).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { chatSpan, stepDuration, toolSpan } from '../../src/telemetry/agent-spans.js';
import { AgentTelemetry, afterRecord, identifyStepsBy, useTelemetry } from '../../src/telemetry/agent-telemetry.js';
import type { StepResult } from '../../src/types/llm.js';
import { CONFIGURATIONS, TracingKit, telemetryOption, type TelemetryConfigurationName } from './telemetry-configurations.js';

const configuration = (process.argv[2] ?? 'tracing') as TelemetryConfigurationName;
const steps = Number(process.argv[3] ?? 4_000);
if (!Object.hasOwn(CONFIGURATIONS, configuration) || !Number.isInteger(steps) || steps < 30) {
  throw new Error(`Usage: node --import tsx bench/telemetry/telemetry-micro.ts <${Object.keys(CONFIGURATIONS).join('|')}> [steps ≥ 30]`);
}

const kit = new TracingKit();
// Each step's spans at its record (spanBatchMs 0), so the step's path holds the telemetry's whole work for the step.
const option = telemetryOption(configuration, kit);
useTelemetry(new AgentTelemetry(option === false ? false : { ...option, spanBatchMs: 0 }));
/** Stands for DBOS's step context: each step body runs with an object of its own (as `DBOS.stepStatus`). */
const stepContext = new AsyncLocalStorage<object>();
identifyStepsBy(() => stepContext.getStore());

const scope = { sessionId: 'micro-session', runId: 'micro-run', agentType: 'bench_agent' };
const result: StepResult = {
  text: '',
  toolCalls: [],
  finishReason: 'tool-calls',
  usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
  modelId: 'mock-model',
} as unknown as StepResult;

/** Work between steps: objects of many shapes, JSON, a buffer scan (as a step's driver and protocol code). */
const kept: unknown[] = [];
function evictCaches(seed: number): number {
  let total = 0;
  for (let index = 0; index < 40; index += 1) {
    const value = { id: `x${seed}-${index}`, n: index, nested: { a: [index, seed], b: 'text'.repeat(index % 7) }, [`k${index % 13}`]: index };
    const text = JSON.stringify(value);
    total += (JSON.parse(text) as { n: number }).n + text.length;
    kept[(seed * 40 + index) % 20_000] = value;
  }
  const buffer = Buffer.alloc(64 * 1024, seed & 0xff);
  for (let at = 0; at < buffer.length; at += 512) total += buffer[at]!;
  return total;
}

/** One journaled step: its body emits, its record resolves at once. */
function step(index: number): Promise<void> {
  const startedAt = Date.now() - 3;
  const body = async (): Promise<void> => {
    if (index % 2 === 0) {
      chatSpan(scope, { step: index, startedAt, endedAt: startedAt + 2, requestModel: 'mock:mock-model', result, attempt: 1 });
      stepDuration('CallLLMStep', startedAt);
    } else {
      toolSpan(scope, { step: index, toolCallId: `noop-${index}`, toolName: 'noop', startedAt, endedAt: startedAt + 1, outcome: 'success', attempt: 1 });
      stepDuration('ExecuteToolStep:noop', startedAt);
    }
  };
  return afterRecord((hold) => stepContext.run({}, () => hold(body)));
}

/** Median and mean below the 90th percentile of the last two thirds of `samples`. */
function summary(samples: number[]): string {
  const sorted = samples.slice(Math.floor(samples.length / 3)).sort((a, b) => a - b);
  const kept90 = sorted.slice(0, Math.floor(sorted.length * 0.9));
  const mean = kept90.reduce((sum, value) => sum + value, 0) / kept90.length;
  return `median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)}, mean ${mean.toFixed(1)}`;
}

async function main(): Promise<void> {
  const onPath: number[] = [];
  const afterwards: number[] = [];
  let sink = 0;
  for (let index = 0; index < steps; index += 1) {
    sink += evictCaches(index);
    await sleep(1);
    const started = process.hrtime.bigint();
    await step(index);
    const stepped = process.hrtime.bigint();
    await nextTurn();
    onPath.push(Number(stepped - started) / 1_000);
    afterwards.push(Number(process.hrtime.bigint() - stepped) / 1_000);
    if (index % 400 === 399) await kit.take();
  }
  const label = CONFIGURATIONS[configuration].label;
  process.stdout.write(`${label}: µs per step on the step's path ${summary(onPath)}; next turn ${summary(afterwards)} (${sink > 0 ? steps : 0} steps)\n`);
  await kit.close();
}

void main();
