import { describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../../fixtures/fake-openai/index.js';

async function post(baseURL: string, path: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
}

/** The JSON payloads of an SSE body (`[DONE]` kept as a string). */
function events(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));
}

describe('fake OpenAI server', () => {
  it('logs every LLM request with its body and outcome, and answers beyond the script with HTTP 400', async () => {
    const fake = await startFakeOpenAI([{ type: 'text', text: 'hello there' }]);
    try {
      expect((await post(fake.baseURL, '/responses', { model: 'a', input: [] })).status).toBe(200);
      const exhausted = await post(fake.baseURL, '/chat/completions', { model: 'b', messages: [] });
      expect(exhausted.status).toBe(400);
      expect(fake.requestCount).toBe(2);
      expect(fake.requests.map(({ index, api, body, outcome }) => ({ index, api, body, outcome }))).toEqual([
        { index: 0, api: 'responses', body: { model: 'a', input: [] }, outcome: 'text' },
        { index: 1, api: 'chat', body: { model: 'b', messages: [] }, outcome: 'exhausted' },
      ]);

      const log = (await (await fetch(`${fake.baseURL.replace(/\/v1$/, '')}/__fake/requests`)).json()) as { requestCount: number };
      expect(log.requestCount).toBe(2);
      expect((await post(fake.baseURL, '/unknown', {})).status).toBe(404);
      expect(fake.requestCount).toBe(2);
    } finally {
      await fake.close();
    }
  });

  it('serves push()ed responses and function scripts', async () => {
    const listed = await startFakeOpenAI([]);
    const scripted = await startFakeOpenAI((request) => ({ type: 'text', text: `request ${request.index} via ${request.api}` }));
    try {
      listed.push({ type: 'http_error', status: 503 });
      expect((await post(listed.baseURL, '/responses', {})).status).toBe(503);
      const body = await post(scripted.baseURL, '/chat/completions', { model: 'm', stream_options: { include_usage: true } });
      const chunks = events(body.text);
      expect(chunks.at(-1)).toBe('[DONE]');
      const text = chunks
        .flatMap((chunk) => (typeof chunk === 'string' ? [] : ((chunk as { choices: Array<{ delta: { content?: string } }> }).choices)))
        .map((choice) => choice.delta.content ?? '')
        .join('');
      expect(text).toBe('request 0 via chat');
      expect(chunks.at(-2)).toMatchObject({ choices: [], usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 } });
    } finally {
      await listed.close();
      await scripted.close();
    }
  });

  it('numbers Responses API events and splits function arguments across deltas', async () => {
    const fake = await startFakeOpenAI([{ type: 'tool_calls', toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }]);
    try {
      const chunks = events((await post(fake.baseURL, '/responses', { model: 'm' })).text) as Array<{ type: string; sequence_number: number; delta?: string }>;
      expect(chunks.map((chunk) => chunk.sequence_number)).toEqual(chunks.map((_chunk, index) => index));
      expect(chunks[0]?.type).toBe('response.created');
      expect(chunks.at(-1)?.type).toBe('response.completed');
      const argumentDeltas = chunks.filter((chunk) => chunk.type === 'response.function_call_arguments.delta').map((chunk) => chunk.delta);
      expect(argumentDeltas).toHaveLength(3);
      expect(argumentDeltas.join('')).toBe('{"a":1,"b":2}');
    } finally {
      await fake.close();
    }
  });
});
