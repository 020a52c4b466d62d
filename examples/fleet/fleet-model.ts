import type { LLMGenerateInput } from '../../src/index.js';
// The test double ships in the `/testing` entry point; importing its module directly keeps vitest (which the entry
// point's contract suites need) out of the worker process.
import { MockLLMAdapter } from '../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../src/llm/mock/mock-llm-response.js';

/** Time to first token and between streamed words: slow enough to watch the stream arrive. */
const FIRST_TOKEN_MS = 150;
const WORD_MS = 30;

/**
 * The worker's scripted model: it asks for the forecast of the city named in the question, then answers from the
 * tool's result, word by word. Answers depend only on the conversation, so any worker answers a run alike.
 *
 * @example
 * const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: createFleetModel() });
 */
export function createFleetModel(): MockLLMAdapter {
  return new MockLLMAdapter((input) => answer(input));
}

function answer(input: LLMGenerateInput): MockLLMResponse {
  const timing = { delayMs: FIRST_TOKEN_MS, chunkDelayMs: WORD_MS };
  const forecast = input.messages.findLast((message) => message.role === 'tool');
  if (forecast?.role === 'tool') {
    const { city, celsius, sky } = forecast.content as { city: string; celsius: number; sky: string };
    return { ...timing, type: 'text', text: `${city} expects ${sky} and ${celsius} °C this weekend.` };
  }
  const question = input.messages.findLast((message) => message.role === 'user');
  const text = typeof question?.content === 'string' ? question.content : '';
  const city = /in ([A-Z][a-z]+)/.exec(text)?.[1] ?? 'Lisbon';
  return {
    ...timing,
    type: 'tool_calls',
    text: `Checking the forecast for ${city}.`,
    toolCalls: [{ id: 'call_weather', name: 'get_weather', arguments: { city } }],
  };
}
