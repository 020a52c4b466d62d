import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import type { DBOSAgentExecutorConfig } from '../../../src/executor/types.js';
import { HookManager } from '../../../src/hooks/index.js';
import { bindRuntimeDependencies, peekRuntimeDependencies } from '../../../src/steps/runtime-registry.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import type { Message } from '../../../src/types/message.js';
import type { RunStatus } from '../../../src/types/session.js';
import type { StreamManager } from '../../../src/stream/stream-manager.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { expect } from 'vitest';
import { readStream } from '../../support/read-stream.js';
import { textOf } from '../executor/executor-test-kit.js';

/**
 * A latch a test opens by hand: code under test calls `pass()` and blocks until `open()`; the test awaits
 * `entered` to know the code reached it. Lets a test act (interrupt, abort) while a tool or LLM call is
 * provably in flight, with no timing guesses.
 *
 * @example
 * const gate = createGate();
 * const slow = defineTool({ name: 'slow', description: 'Slow', parameters: z.object({}), execute: async () => { await gate.pass(); return 'ok'; } });
 * await gate.entered;
 * await handle.interrupt();
 * gate.open();
 */
export interface Gate {
  /** Resolves the first time code reaches `pass()`. */
  readonly entered: Promise<void>;
  /** How many times code reached `pass()`. */
  readonly passes: number;
  /** Called by the code under test: marks the gate entered, then waits until the test opens it. */
  pass(): Promise<void>;
  /** Let every current and future `pass()` through. */
  open(): void;
}

/**
 * Create a closed {@link Gate}.
 *
 * @example
 * const gate = createGate();
 * setTimeout(() => gate.open(), 10);
 * await gate.pass();
 */
export function createGate(): Gate {
  let markEntered: () => void = () => undefined;
  let release: () => void = () => undefined;
  const entered = new Promise<void>((resolve) => (markEntered = resolve));
  const opened = new Promise<void>((resolve) => (release = resolve));
  let passes = 0;
  return {
    entered,
    get passes() {
      return passes;
    },
    async pass() {
      passes += 1;
      markEntered();
      await opened;
    },
    open: () => release(),
  };
}

/**
 * Poll a run record until it has `wanted` status (or the time is up); returns the last status seen.
 *
 * @example
 * expect(await waitForRunStatus(runtime.stateStore, 's1', handle.runId, 'suspended_client_tool', 5_000)).toBe('suspended_client_tool');
 */
export async function waitForRunStatus(
  stateStore: SessionStateStore,
  sessionId: string,
  runId: string,
  wanted: RunStatus,
  timeoutMs: number,
): Promise<RunStatus | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await stateStore.getRun(sessionId, runId);
    if (run?.status === wanted || Date.now() > deadline) return run?.status;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A compact view of a conversation for assertions: `role:text`, `assistant:[toolCallIds]` for tool-calling
 * turns, `tool:toolCallId` for results.
 *
 * @example
 * expect(conversation(messages)).toEqual(['user:hi', 'assistant:[c1]', 'tool:c1', 'assistant:done']);
 */
export function conversation(messages: readonly Message[]): string[] {
  return messages.map((message) => {
    if (message.role === 'tool') return `tool:${message.toolCallId}`;
    if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0) {
      return `assistant:[${(message.toolCalls ?? []).map((call) => call.id).join(',')}]`;
    }
    return `${message.role}:${message.content}`;
  });
}

/**
 * Run `body` with a second executor on the same stores whose park of `rootSessionId` for its children is held at
 * the `onAgentSuspended` hook (reason `awaiting_children`: after the child parked, before the root's run reads
 * parked) until the body opens `parking`. Steps bind to the last executor constructed: the previous binding is
 * restored (and the gate opened) when the body ends.
 *
 * @example
 * await withRootParkHeld({ ...stores, llmAdapter, autoResumeOnSubmit: true }, 'root-1', async (executor, parking) => {
 *   await executor.execute(agent, 'go', { sessionId: 'root-1' });
 *   await parking.entered;
 * });
 */
export async function withRootParkHeld(
  config: Omit<DBOSAgentExecutorConfig, 'hookManager'>,
  rootSessionId: string,
  body: (executor: DBOSAgentExecutor, parking: Gate) => Promise<void>,
): Promise<void> {
  const parking = createGate();
  const bound = peekRuntimeDependencies();
  const executor = new DBOSAgentExecutor({
    ...config,
    hookManager: new HookManager({
      hooks: [{ onAgentSuspended: async (event) => void (event.sessionId === rootSessionId && event.reason === 'awaiting_children' && (await parking.pass())) }],
    }),
  });
  try {
    await body(executor, parking);
  } finally {
    parking.open();
    if (bound !== undefined) bindRuntimeDependencies(bound);
  }
}

/**
 * Assert the stream of a run resumed after its abort (`dbos workflow resume`): the `ABORTED` chunk, then the
 * continuation — the resumed tool's `tool_end` with `result`, the text `text`, and the `output` chunk last, and the
 * stream ended. Returns the stream's chunks for further checks.
 *
 * @example
 * const chunks = await expectResumedStream(streamManager, 's1', { toolCallId: 'slow-1', result: 'slow result', text: 'All done.' });
 */
export async function expectResumedStream(
  streamManager: Pick<StreamManager, 'createReader' | 'getInfo'>,
  sessionId: string,
  expected: { toolCallId: string; result: unknown; text: string },
): Promise<StreamChunk[]> {
  const chunks = await readStream(streamManager, sessionId);
  const aborted = chunks.findIndex((chunk) => chunk.type === 'error' && chunk.code === 'ABORTED');
  expect(aborted).toBeGreaterThan(0);
  const continuation = chunks.slice(aborted + 1);
  expect(continuation).toContainEqual(expect.objectContaining({ type: 'tool_end', toolCallId: expected.toolCallId, result: expected.result }));
  expect(textOf(continuation)).toBe(expected.text);
  expect(continuation.at(-1)).toMatchObject({ type: 'output', output: expected.text });
  expect(await streamManager.getInfo(sessionId)).toMatchObject({ status: 'ended' });
  return chunks;
}
