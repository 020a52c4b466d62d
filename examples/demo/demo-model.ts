import { VercelAIAdapter, type LLMAdapter } from '../../src/index.js';
import { createScriptedModel } from './scripted-model.js';

/**
 * The model the demo talks to, and how to describe it on screen.
 *
 * @example
 * const model: DemoModel = await chooseDemoModel(process.env);
 * console.log(model.description);
 */
export interface DemoModel {
  adapter: LLMAdapter;
  /** True for the scripted stand-in (no `OPENAI_API_KEY`). */
  scripted: boolean;
  description: string;
}

/**
 * `OPENAI_API_KEY` set: `VercelAIAdapter` with `@ai-sdk/openai` (`OPENAI_MODEL`, default `gpt-4o-mini`;
 * `OPENAI_BASE_URL` is honoured by the provider). Otherwise the scripted model.
 *
 * @example
 * const { adapter } = await chooseDemoModel({ OPENAI_API_KEY: 'sk-…', OPENAI_MODEL: 'gpt-4o' });
 */
export async function chooseDemoModel(env: NodeJS.ProcessEnv): Promise<DemoModel> {
  const apiKey = env.OPENAI_API_KEY;
  if (apiKey === undefined || apiKey === '') {
    return {
      adapter: createScriptedModel(),
      scripted: true,
      description: 'scripted model (no OPENAI_API_KEY set: answers are pre-written and streamed with small delays)',
    };
  }
  const { createOpenAI } = await import('@ai-sdk/openai');
  const modelId = env.OPENAI_MODEL === undefined || env.OPENAI_MODEL === '' ? 'gpt-4o-mini' : env.OPENAI_MODEL;
  const provider = createOpenAI({ apiKey, ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}) });
  return { adapter: new VercelAIAdapter({ model: provider(modelId) }), scripted: false, description: `OpenAI ${modelId} via VercelAIAdapter` };
}
