import type { z } from 'zod';

import type { AgentHooks } from '../hooks/types.js';
import type { LLMConfig, StepResult } from '../types/llm.js';
import type { SkillDefinition, SkillProvider } from '../types/skill.js';
import type { PersistentAgentConfig, ResolvedPersistentAgent } from './persistent-agent.js';
import type { UserTool, SubAgentTool, RemoteSubAgentTool } from './tool-types.js';

/**
 * What `stopWhen` sees after each step. It runs in the workflow body: keep it pure and synchronous.
 *
 * @example
 * const stopWhen: StopWhen<{ found: boolean }> = ({ customState }) => customState.found;
 */
export interface StopWhenContext<TState = Record<string, unknown>> {
  /** Steps completed in this run, including the current one. */
  stepCount: number;
  /** The LLM result of the current step. */
  stepResult: StepResult;
  /** Custom state after the step's tools ran. */
  customState: TState;
}

/**
 * Custom stop condition, checked after every step; `true` completes the run with reason `stop_when`.
 *
 * @example
 * const stopWhen: StopWhen = ({ stepCount }) => stepCount >= 3;
 */
export type StopWhen<TState = Record<string, unknown>> = (context: StopWhenContext<TState>) => boolean;

/**
 * The agent's system prompt: fixed text, or built from the current custom state before every LLM call.
 *
 * @example
 * const prompt: SystemPrompt<{ name: string }> = (state) => `You help ${state.name}.`;
 */
export type SystemPrompt<TState = Record<string, unknown>> = string | ((state: TState) => string);

/**
 * A tool an agent may list in `tools`: anything from `defineTool` or `createSubAgentTool`.
 *
 * @example
 * const tools: AgentToolInput[] = [weatherTool, createSubAgentTool(summarizer, z.object({ text: z.string() }))];
 */
export type AgentToolInput = UserTool | SubAgentTool<any> | RemoteSubAgentTool<any>;

/**
 * Options of `defineAgent`.
 *
 * @example
 * const definition: AgentDefinition = { name: 'assistant', systemPrompt: 'Be brief.' };
 */
export interface AgentDefinition<
  TStateSchema extends z.ZodType = z.ZodType<Record<string, unknown>>,
  TOutputSchema extends z.ZodType = z.ZodType<unknown>,
> {
  /** Agent type: `^[a-zA-Z0-9_-]{1,54}$` (it becomes part of workflow ids and `subagent__${name}`). */
  name: string;
  /** Shown to parents choosing this agent as a sub-agent or companion. */
  description?: string;
  systemPrompt: SystemPrompt<z.output<TStateSchema>>;
  tools?: readonly AgentToolInput[];
  /** Structured output. Injects the `__finish__` tool (parameters = this schema); must be an object schema. */
  outputSchema?: TOutputSchema;
  /** Custom state; its defaults seed a new session's state. */
  stateSchema?: TStateSchema;
  llmConfig?: LLMConfig;
  /** Maximum LLM steps per run (positive integer). Default 10. */
  maxSteps?: number;
  stopWhen?: StopWhen<z.output<TStateSchema>>;
  hooks?: AgentHooks;
  /** Persistent sub-agents managed through the auto-injected `companion__*` tools. */
  persistentAgents?: readonly PersistentAgentConfig[];
  /** Accepted for portability and unused on DBOS: the executor's logger warns once per agent (`agent.memory.unused`). */
  memory?: unknown;
  /**
   * Skills (progressive disclosure): in-code definitions or a `SkillProvider` such as `fileSystemSkillProvider`.
   * Appends the sorted skills catalog to the system prompt and injects the `load_skill` and `read_skill_file` tools.
   */
  skills?: readonly SkillDefinition[] | SkillProvider;
  /** Skills whose bodies are always in the system prompt (`### Active Skills`). Unknown names warn and are skipped. */
  preloadSkills?: readonly string[];
  /** Accepted for portability; the DBOS executor rejects workspaces at run start. */
  workspace?: unknown;
  /**
   * The DBOS queue its runs are enqueued on (`^[A-Za-z0-9_.:-]{1,64}$`): any process that registered the queue
   * (`DBOS.registerQueue`) and this agent runs them, under the queue's limits. Applies to `execute()`, `resume()`,
   * `retry()`, to this agent's runs as a sub-agent, and to every generation of its persistent sessions and companions
   * (a generation waiting warm for its next message holds one of the queue's slots). Overrides the executor's `queue`.
   */
  queue?: string;
}

/**
 * A validated, frozen agent definition, as returned by `defineAgent`.
 *
 * @example
 * function run<TState, TOutput>(agent: AgentConfig<z.ZodType<TState>, z.ZodType<TOutput>>) { return agent.maxSteps; }
 */
export interface AgentConfig<
  TStateSchema extends z.ZodType = z.ZodType<Record<string, unknown>>,
  TOutputSchema extends z.ZodType = z.ZodType<unknown>,
> {
  readonly name: string;
  readonly description?: string;
  readonly systemPrompt: SystemPrompt<z.output<TStateSchema>>;
  /** The tools the user listed (without injected tools; see `buildEffectiveTools`). */
  readonly tools: readonly AgentToolInput[];
  readonly outputSchema?: TOutputSchema;
  readonly stateSchema?: TStateSchema;
  readonly llmConfig: LLMConfig;
  readonly maxSteps: number;
  readonly stopWhen?: StopWhen<z.output<TStateSchema>>;
  readonly hooks?: AgentHooks;
  /** Validated `persistentAgents` with defaults applied (empty when none). */
  readonly persistentAgents: readonly ResolvedPersistentAgent[];
  readonly memory?: unknown;
  /** The skills as a provider (in-code definitions are wrapped in `inCodeSkillProvider`). */
  readonly skills?: SkillProvider;
  readonly preloadSkills?: readonly string[];
  readonly workspace?: unknown;
  /** The DBOS queue its runs are enqueued on (see `AgentDefinition.queue`). */
  readonly queue?: string;
}

/**
 * An agent of any state and output type (for registries and helpers that do not care).
 *
 * @example
 * const registry = new Map<string, AnyAgentConfig>();
 */
export type AnyAgentConfig = AgentConfig<any, any>;

/**
 * What `execute` accepts: a user message, or a message plus initial custom state.
 *
 * @example
 * const input: AgentInput<{ topic: string }> = { message: 'Go', state: { topic: 'cats' } };
 */
export type AgentInput<TState = Record<string, unknown>> = string | { message: string; state?: Partial<TState> };
