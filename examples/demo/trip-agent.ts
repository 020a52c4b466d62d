import { z } from 'zod';
import { defineAgent, defineTool, type ToolContext } from '../../src/index.js';
import type { ToolExecutionLog } from './tool-execution-log.js';

/** The custom state the trip agent's tools write. */
const tripStateSchema = z.object({
  forecasts: z.record(z.string(), z.string()).default({}),
  notes: z.array(z.string()).default([]),
});

/**
 * Custom state of the trip planner: the forecasts it looked up and the notes it saved.
 *
 * @example
 * const state: TripState = { forecasts: { Lisbon: 'sunny, 24 °C' }, notes: [] };
 */
export type TripState = z.output<typeof tripStateSchema>;

/** The structured output the run ends with (the `__finish__` tool's arguments). */
const tripPlanSchema = z.object({
  destination: z.string().describe('The chosen city'),
  reason: z.string().describe('Why this city, in one sentence'),
  itinerary: z.array(z.string()).describe('One line per day'),
});

/**
 * The trip planner's structured output.
 *
 * @example
 * const plan: TripPlan = { destination: 'Lisbon', reason: 'Sunnier', itinerary: ['Day 1: Alfama'] };
 */
export type TripPlan = z.output<typeof tripPlanSchema>;

/**
 * The question the demo asks.
 *
 * @example
 * await executor.execute(agent, TRIP_QUESTION, { sessionId });
 */
export const TRIP_QUESTION = 'Plan a 3-day city trip for next weekend: Lisbon or Porto, whichever has the better weather.';

const FORECASTS: Record<string, { sky: string; celsius: number }> = {
  lisbon: { sky: 'sunny', celsius: 24 },
  porto: { sky: 'rain showers', celsius: 17 },
};

const SIGHTS: Record<string, string[]> = {
  lisbon: ['Alfama and the castle at sunset', 'Belém: the tower, the monastery and pastéis', 'Tram 28, LX Factory and a fado evening'],
  porto: ['Ribeira and the Dom Luís I bridge', 'Port cellars in Vila Nova de Gaia', 'Livraria Lello and the Serralves gardens'],
};

/**
 * Build the demo's trip-planner agent. Its tools keep a side record in `log` so a recovered run can show
 * which tools really ran again; `draft_itinerary` works for `slowToolMs` (the crash drill's window).
 *
 * @example
 * const agent = createTripAgent({ log: new ToolExecutionLog(url), slowToolMs: 1000 });
 * registerAgent(agent); // before DBOS.launch(), so a recovered run finds its tools
 */
export function createTripAgent(options: { log: ToolExecutionLog; slowToolMs: number }) {
  const { log, slowToolMs } = options;
  const recorded = async <T>(context: ToolContext<TripState>, toolName: string, body: () => Promise<T>): Promise<T> => {
    const id = await log.started(context.sessionId, context.toolCallId, toolName);
    const result = await body();
    await log.finished(id);
    return result;
  };

  const getWeather = defineTool({
    name: 'get_weather',
    description: 'Weekend weather forecast for a city.',
    parameters: z.object({ city: z.string().describe('City name, e.g. Lisbon') }),
    execute: async ({ city }, context: ToolContext<TripState>) =>
      recorded(context, 'get_weather', async () => {
        const forecast = FORECASTS[city.toLowerCase()] ?? { sky: 'cloudy', celsius: 19 };
        const summary = `${forecast.sky}, ${forecast.celsius} °C`;
        context.updateState((draft) => {
          draft.forecasts[city] = summary;
        });
        return { city, ...forecast };
      }),
  });

  const saveNote = defineTool({
    name: 'save_note',
    description: 'Save a short note to the trip notebook (the agent state).',
    parameters: z.object({ note: z.string() }),
    execute: async ({ note }, context: ToolContext<TripState>) =>
      recorded(context, 'save_note', async () => {
        context.updateState((draft) => {
          draft.notes.push(note);
        });
        return { saved: true, notes: context.getState().notes.length };
      }),
  });

  const draftItinerary = defineTool({
    name: 'draft_itinerary',
    description: 'Draft a day-by-day itinerary for a city (slow: it consults several guides).',
    parameters: z.object({ city: z.string(), days: z.number().int().min(1).max(7) }),
    execute: async ({ city, days }, context: ToolContext<TripState>) =>
      recorded(context, 'draft_itinerary', async () => {
        await sleep(slowToolMs, context.abortSignal);
        const sights = SIGHTS[city.toLowerCase()] ?? ['The old town', 'The main museum', 'A food market'];
        return { city, itinerary: Array.from({ length: days }, (_, day) => `Day ${day + 1}: ${sights[day % sights.length] ?? ''}`) };
      }),
  });

  return defineAgent({
    name: 'trip_planner',
    systemPrompt: (state: TripState) =>
      [
        'You plan short city trips.',
        'Call get_weather once for each candidate city, save the key finding with save_note,',
        'draft the itinerary for the chosen city with draft_itinerary, then call __finish__ with',
        'the destination, a one-sentence reason and the itinerary lines. Keep your messages short.',
        `Notes saved so far: ${state.notes.length}.`,
      ].join(' '),
    tools: [getWeather, saveNote, draftItinerary],
    stateSchema: tripStateSchema,
    outputSchema: tripPlanSchema,
    maxSteps: 8,
    llmConfig: { temperature: 0 },
  });
}

async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('draft_itinerary was aborted.'));
    }, { once: true });
  });
}
