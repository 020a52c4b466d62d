import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

const agent = defineAgent({ name: 'begin_ahead_agent', systemPrompt: 'x', maxSteps: 1 });
const llm = new MockLLMAdapter(() => ({ type: 'text', text: 'answered' }));

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('begin_ahead', llm);
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** The journal's first look for a step's recorded outcome: the fused journal's one read, DBOS's cancellation check. */
const JOURNAL_LOOK = /SELECT status\.status, output\.output|SELECT status FROM "dbos"\.workflow_status WHERE workflow_uuid=\$1/;
const RUN_READ = /SELECT \* FROM "public"\."__agents_runs" WHERE session_id = \$1 AND \(\$2::text IS NULL OR run_id = \$2\)/;

describe("a run's begin", () => {
  it("sends its reads (its run, its first step's) beside the journal's look for its record, not after that look's answer", async () => {
    const events: string[] = [];
    const query = Reflect.get(pg.Client.prototype, 'query') as (...args: unknown[]) => unknown;
    let watching = false;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string };
      const text = (typeof config === 'string' ? config : config?.text) ?? '';
      const look = watching && JOURNAL_LOOK.test(text) && !events.includes('look sent');
      if (look) events.push('look sent');
      else if (watching && RUN_READ.test(text)) events.push('run read sent');
      const callback = args.at(-1);
      // A pool's query answers through a callback, a client's through its promise.
      if (look && typeof callback === 'function') {
        args[args.length - 1] = (...answer: unknown[]) => {
          events.push('look answered');
          return Reflect.apply(callback, undefined, answer) as unknown;
        };
      }
      const answer = Reflect.apply(query, this, args) as Promise<unknown> | undefined;
      if (look && typeof callback !== 'function') void answer?.then(() => events.push('look answered'), () => events.push('look answered'));
      return answer as never;
    });
    try {
      // A warm process (the first run of a process sets up its runtime first).
      await (await runtime.executor.execute(agent, 'Warm.', { sessionId: 'ahead-0' })).result();
      watching = true;
      const handle = await runtime.executor.execute(agent, 'Hi.', { sessionId: 'ahead-1' });
      expect((await handle.result()).status).toBe('completed');
    } finally {
      watching = false;
      spy.mockRestore();
    }
    const lookAnswered = events.indexOf('look answered');
    const runRead = events.indexOf('run read sent');
    expect(lookAnswered).toBeGreaterThan(-1);
    expect(runRead).toBeGreaterThan(-1);
    expect(runRead).toBeLessThan(lookAnswered);
  });
});
