/**
 * The instrument of the dead-worker drill: the fake OpenAI server's provider-limit mode. It must see a fleet that
 * breaks a limit (the most requests in flight, per period and tokens per period it was asked for) and refuse the
 * request above the limit with HTTP 429 and `retry-after-ms`, without consuming the script or logging the request.
 */
import { describe, expect, it } from 'vitest';
import { readProviderLoad, setProviderLimits, startFakeOpenAI, type FakeOpenAIScript } from '../../fixtures/fake-openai/index.js';

/** A streamed answer that stays in flight for about 10 × 30 ms, reporting 30 tokens. */
const slowAnswer: FakeOpenAIScript = (request) => ({ type: 'text', text: `answer ${request.index} a b c d e f g h`, chunkDelayMs: 30, usage: { inputTokens: 20, outputTokens: 10 } });

async function post(baseURL: string, signal?: AbortSignal): Promise<{ status: number; retryAfterMs: string | null; text: string }> {
  const response = await fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake-model', messages: [] }),
    ...(signal === undefined ? {} : { signal }),
  });
  return { status: response.status, retryAfterMs: response.headers.get('retry-after-ms'), text: await response.text() };
}

async function until(check: () => boolean): Promise<void> {
  for (let polls = 0; !check(); polls += 1) {
    if (polls > 200) throw new Error('the fake server never reached the expected load');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('fake OpenAI server: provider limits', () => {
  it('refuses a request above the concurrency limit with 429 and retry-after-ms, and records the demand', async () => {
    const fake = await startFakeOpenAI(slowAnswer, { limits: { concurrency: 1, retryAfterMs: 250 } });
    try {
      const first = post(fake.baseURL);
      await until(() => fake.load.inFlight === 1);
      const refused = await post(fake.baseURL);
      expect(refused).toMatchObject({ status: 429, retryAfterMs: '250' });
      expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
      expect((await first).status).toBe(200);
      await until(() => fake.load.inFlight === 0);
      // A finished response frees its slot; the refused request neither consumed the script nor reached the log.
      expect((await post(fake.baseURL)).text).toContain('"id":"chatcmpl-1"');
      expect(fake.requests.map((request) => request.index)).toEqual([0, 1]);
      expect(fake.load).toMatchObject({ maxInFlight: 2, admitted: 2, rateLimited: 1, limits: { concurrency: 1 } });
    } finally {
      await fake.close();
    }
  });

  it('frees the slot of a client that went away mid-stream', async () => {
    const fake = await startFakeOpenAI(() => ({ type: 'hang' }));
    fake.limit({ concurrency: 1 });
    try {
      const abort = new AbortController();
      const hanging = post(fake.baseURL, abort.signal).catch(() => 'aborted');
      await until(() => fake.load.inFlight === 1);
      abort.abort();
      expect(await hanging).toBe('aborted');
      await until(() => fake.load.inFlight === 0);
      expect(fake.load).toMatchObject({ maxInFlight: 1, rateLimited: 0 });
    } finally {
      await fake.close();
    }
  });

  it('counts requests and reported tokens per sliding period; a full period answers 429 with the time until it frees up', async () => {
    const fake = await startFakeOpenAI(slowAnswer);
    try {
      // Configured over HTTP, as a drill does for a server it knows only by URL; observation starts afresh.
      await setProviderLimits(fake.baseURL, { requests: { limit: 2, periodMs: 60_000 } });
      expect((await post(fake.baseURL)).status).toBe(200);
      expect((await post(fake.baseURL)).status).toBe(200);
      const refused = await post(fake.baseURL);
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfterMs)).toBeGreaterThan(50_000);
      expect(Number(refused.retryAfterMs)).toBeLessThanOrEqual(60_001);
      expect(await readProviderLoad(fake.baseURL)).toMatchObject({ maxRequests: 3, maxTokens: 60, requestsPeriodMs: 60_000, admitted: 2, rateLimited: 1 });

      // Tokens: each answer reports 30; the third request finds the period holding 60 ≥ 50 and is refused.
      await setProviderLimits(fake.baseURL, { tokens: { limit: 50, periodMs: 60_000 } });
      expect((await post(fake.baseURL)).status).toBe(200);
      expect((await post(fake.baseURL)).status).toBe(200);
      expect((await post(fake.baseURL)).status).toBe(429);
      expect(await readProviderLoad(fake.baseURL)).toMatchObject({ maxTokens: 60, tokensPeriodMs: 60_000, admitted: 2, rateLimited: 1 });
      expect(fake.requestCount).toBe(4);
    } finally {
      await fake.close();
    }
  });
});
