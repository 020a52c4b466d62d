import type { LLMGenerateInput, Message } from '../../src/index.js';
// The test double ships in the `/testing` entry point; importing its module directly keeps vitest (which the
// entry point's contract suites need) out of the demo process.
import { MockLLMAdapter } from '../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../src/llm/mock/mock-llm-response.js';

/** Time to first token and between streamed words: slow enough to watch, fast enough for a short demo. */
const FIRST_TOKEN_MS = 250;
const WORD_MS = 35;

/**
 * A scripted stand-in for a real model (used without `OPENAI_API_KEY`): it streams realistic text word by
 * word and calls the trip planner's tools in the order a model would — both forecasts in parallel, a note,
 * the slow itinerary draft, then the structured result.
 *
 * The script reads the conversation, never a call counter, so a run recovered in a new process continues
 * exactly where it stopped: the next answer depends only on how far the current turn got.
 *
 * @example
 * const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: createScriptedModel() });
 */
export function createScriptedModel(): MockLLMAdapter {
  return new MockLLMAdapter((input) => scriptedAnswer(input));
}

function scriptedAnswer(input: LLMGenerateInput): MockLLMResponse {
  const { messages } = input;
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const turn = messages.filter((message) => message.role === 'user').length;
  const stage = messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length;
  const timing = { delayMs: FIRST_TOKEN_MS, chunkDelayMs: WORD_MS, usage: usageFor(messages) };
  const id = (index: number): string => `call_${turn}_${stage}_${index}`;
  switch (stage) {
    case 0:
      return {
        ...timing,
        type: 'tool_calls',
        text: "Good question! I'll compare the weekend forecasts for Lisbon and Porto first.",
        toolCalls: [
          { id: id(0), name: 'get_weather', arguments: { city: 'Lisbon' } },
          { id: id(1), name: 'get_weather', arguments: { city: 'Porto' } },
        ],
      };
    case 1:
      return {
        ...timing,
        type: 'tool_calls',
        text: 'Lisbon looks sunny and warm while Porto expects showers. Let me note that down.',
        toolCalls: [{ id: id(0), name: 'save_note', arguments: { note: 'Lisbon: sunny, 24 °C. Porto: rain showers, 17 °C. Go to Lisbon.' } }],
      };
    case 2:
      return {
        ...timing,
        type: 'tool_calls',
        text: 'Now drafting a three-day itinerary for Lisbon; this takes a moment.',
        toolCalls: [{ id: id(0), name: 'draft_itinerary', arguments: { city: 'Lisbon', days: 3 } }],
      };
    default:
      return {
        ...timing,
        type: 'structured_output',
        id: id(0),
        text: 'Here is your plan: three sunny days in Lisbon.',
        output: {
          destination: 'Lisbon',
          reason: 'Lisbon expects sun and 24 °C while Porto expects rain showers.',
          itinerary: draftedItinerary(messages) ?? ['Day 1: Alfama', 'Day 2: Belém', 'Day 3: Tram 28'],
        },
      };
  }
}

/** The itinerary lines the draft_itinerary tool returned in this conversation, if any. */
function draftedItinerary(messages: readonly Message[]): string[] | undefined {
  for (const message of [...messages].reverse()) {
    if (message.role !== 'tool' || message.toolName !== 'draft_itinerary' || message.isError === true) continue;
    const itinerary = (message.content as { itinerary?: unknown } | null)?.itinerary;
    if (Array.isArray(itinerary) && itinerary.every((line) => typeof line === 'string')) return itinerary;
  }
  return undefined;
}

/** Plausible token counts: about four characters per input token. */
function usageFor(messages: readonly Message[]): { inputTokens: number; outputTokens: number } {
  const characters = messages.reduce((total, message) => total + JSON.stringify(message).length, 0);
  return { inputTokens: Math.ceil(characters / 4), outputTokens: 40 };
}
