import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { FirstCallAhead, MAX_CALLS_AHEAD, startFirstCallAhead, takeFirstCallAhead } from '../../../src/steps/first-call-ahead.js';
import type { FirstStepReads } from '../../../src/steps/first-step-reads.js';
import type { StepEnvironment } from '../../../src/steps/step-scope.js';
import type { LLMGenerateInput, LLMStreamCallbacks, StepResult } from '../../../src/types/llm.js';

const agent = defineAgent({ name: 'ahead_unit', systemPrompt: 'Answer.' });
const answer: StepResult = { text: 'hi there', toolCalls: [], usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }, finishReason: 'stop' };

/** A model that streams `deltas` (then waits for `release`, if given) and answers; and what it was asked with. */
function model(deltas: string[], release?: Promise<void>) {
  const seen: { input?: LLMGenerateInput } = {};
  const adapter = {
    generateStep: async (input: LLMGenerateInput, callbacks?: LLMStreamCallbacks) => {
      seen.input = input;
      for (const delta of deltas) await callbacks?.onTextDelta?.(delta);
      await release;
      if (input.abortSignal?.aborted === true) throw new Error('aborted');
      return answer;
    },
  };
  return { adapter, seen };
}

/** An environment whose emitter records what it wrote and flushed, in order. */
function environment(adapter: unknown) {
  const log: string[] = [];
  const emitter = {
    emit: async (chunk: { type: string; delta?: string }) => void log.push(`${chunk.type}:${chunk.delta ?? ''}`),
    flush: async () => void log.push('flush'),
    flushLazily: async () => void log.push('flush lazily'),
  };
  const value = { dependencies: { llmAdapter: adapter }, agent, emitter, hooks: { hasHooks: () => false } } as unknown as StepEnvironment;
  return { value, log };
}

function reads(interrupted = false): FirstStepReads & { state: Promise<unknown>; history: Promise<unknown[]> } {
  const state = { customState: {} };
  return { flag: Promise.resolve({ interrupted }), state: Promise.resolve(state), history: Promise.resolve([]) } as never;
}

const run = { sessionId: 's1', workflowId: 'wf-1' };

describe('FirstCallAhead', () => {
  it('calls once started, flushes its first delta at once (lazily), keeps the rest until adopted, then writes them in order', async () => {
    let release!: () => void;
    const { adapter, seen } = model(['a', 'b', 'c'], new Promise<void>((resolve) => (release = resolve)));
    const env = environment(adapter);
    let started!: () => void;
    const call = new FirstCallAhead(run, Promise.resolve(env.value), reads(), new Promise<void>((resolve) => (started = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen.input).toBeUndefined(); // not before DBOS recorded the workflow's start
    started();
    const basisReads = reads();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen.input?.sessionId).toBe('s1');
    expect(env.log).toEqual(['text_delta:a', 'flush lazily']);
    expect(await call.madeFrom(agent, (await basisReads.state) as never, [])).toBe(false); // not its own reads
    const result = call.adopt(new AbortController().signal);
    release();
    expect(await result).toBe(answer);
    expect(env.log).toEqual(['text_delta:a', 'flush lazily', 'text_delta:b', 'text_delta:c']);
  });

  it('is made from the reads it was given: the step that built its request from them adopts it', async () => {
    const { adapter } = model([]);
    const given = reads();
    const call = new FirstCallAhead(run, Promise.resolve(environment(adapter).value), given, Promise.resolve());
    const state = (await given.state) as never;
    const history = (await given.history) as never;
    expect(await call.madeFrom(agent, state, history)).toBe(true);
    expect(await call.madeFrom(defineAgent({ name: 'other_agent', systemPrompt: 'x' }), state, history)).toBe(false);
  });

  it('discarded, stops the call and says whether it wrote a chunk; the step’s signal stops an adopted one', async () => {
    let release!: () => void;
    const { adapter, seen } = model(['a'], new Promise<void>((resolve) => (release = resolve)));
    const call = new FirstCallAhead(run, Promise.resolve(environment(adapter).value), reads(), Promise.resolve());
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(call.discard()).toBe(true);
    expect(seen.input?.abortSignal?.aborted).toBe(true);
    release();

    const quiet = model([], new Promise<void>(() => undefined));
    const silent = new FirstCallAhead(run, Promise.resolve(environment(quiet.adapter).value), reads(), Promise.resolve());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const stop = new AbortController();
    void silent.adopt(stop.signal).catch(() => undefined);
    stop.abort(new Error('interrupted'));
    expect(quiet.seen.input?.abortSignal?.aborted).toBe(true);
    expect(silent.discard()).toBe(false);
  });

  it('makes no call when the reads say the run was interrupted, or its start never recorded', async () => {
    const { adapter, seen } = model(['a']);
    const interrupted = new FirstCallAhead(run, Promise.resolve(environment(adapter).value), reads(true), Promise.resolve());
    expect(await interrupted.madeFrom(agent, {} as never, [])).toBe(false);
    const failed = new FirstCallAhead(run, Promise.resolve(environment(adapter).value), reads(), Promise.reject(new Error('start failed')));
    expect(await failed.madeFrom(agent, {} as never, [])).toBe(false);
    expect(seen.input).toBeUndefined();
  });

  it('a burst of starts keeps every call for its step: 512 at once, none dropped (64 were kept, a burst of 128 paid twice)', async () => {
    const { adapter } = model([]);
    const started = new Promise<void>(() => undefined); // never called: only what is kept matters here
    for (let index = 0; index < 512; index += 1) {
      startFirstCallAhead({ ...run, runId: `burst-${index}` }, Promise.resolve(environment(adapter).value), reads(), started);
    }
    for (let index = 0; index < 512; index += 1) {
      expect(takeFirstCallAhead(`burst-${index}`), `burst-${index}`).toBeInstanceOf(FirstCallAhead);
    }
    expect(MAX_CALLS_AHEAD).toBeGreaterThanOrEqual(512);
  });
});
