import type { Attributes } from '@opentelemetry/api';
import type { SpanScope } from './span-emission.js';
import * as attr from './semconv.js';

/**
 * The attribute sets the spans and metrics of a step repeat, built once and shared (frozen): a run's identity, a
 * model's, a tool's outcome, a step's name. A span starts with the shared set a sampler decides on (a chat span its
 * model's, `base`) and its own attributes start as a copy of its run's identity (one clone instead of an object per
 * part, spread together); a metric record passes the shared set itself (the SDK keeps the first object of each set and
 * copies nothing). Bounded: a cache past its size starts over.
 */
const CACHED = 1_024;

/** What a chat span and the GenAI client metrics report of the model asked for. */
export interface ModelAttributes {
  /** The span name: `chat <model>`, or `chat`. */
  spanName: string;
  /**
   * `gen_ai.operation.name`, provider and request model: the metrics' set (a success's operation duration) and what a
   * sampler sees of a chat span when it starts.
   */
  base: Attributes;
  /** The token usage sets, by token type. */
  inputTokens: Attributes;
  outputTokens: Attributes;
}

const models = new Map<string, ModelAttributes>();

/**
 * The attribute sets of a model key (`provider:model`, a bare model id, or none).
 *
 * @example
 * modelAttributes('openai:gpt-5').spanName; // 'chat gpt-5'
 */
export function modelAttributes(modelKey: string | undefined): ModelAttributes {
  const key = modelKey ?? '';
  const known = models.get(key);
  if (known !== undefined) return known;
  const [provider, model] = splitModel(modelKey);
  const base: Attributes = { [attr.OPERATION]: 'chat' };
  if (provider !== undefined) base[attr.PROVIDER] = provider;
  if (model !== undefined) base[attr.REQUEST_MODEL] = model;
  const created: ModelAttributes = {
    spanName: model === undefined ? 'chat' : `chat ${model}`,
    base: Object.freeze(base),
    inputTokens: Object.freeze({ ...base, [attr.TOKEN_TYPE]: 'input' }),
    outputTokens: Object.freeze({ ...base, [attr.TOKEN_TYPE]: 'output' }),
  };
  remember(models, key, created);
  return created;
}

/** A run's identity on its spans (cached by run id, checked against the scope). */
interface RunIdentity {
  sessionId: string;
  conversationId: string;
  attributes: Attributes;
}

const runs = new Map<string, RunIdentity>();

/**
 * A new attributes object of a span of the scope's run: who emits it (conversation: the root session; agent: its
 * session; session; run), to which the caller adds the span's own.
 *
 * @example
 * const attributes = runAttributes(scope);
 * attributes[STEP] = 3;
 */
export function runAttributes(scope: SpanScope): Attributes {
  const conversationId = scope.rootSessionId ?? scope.sessionId;
  let known = runs.get(scope.runId);
  if (known === undefined || known.sessionId !== scope.sessionId || known.conversationId !== conversationId) {
    const { sessionId, runId } = scope;
    const attributes = { [attr.CONVERSATION_ID]: conversationId, [attr.AGENT_ID]: sessionId, [attr.SESSION_ID]: sessionId, [attr.RUN_ID]: runId };
    known = { sessionId, conversationId, attributes: Object.freeze(attributes) };
    remember(runs, scope.runId, known);
  }
  return { ...known.attributes };
}

/** What a sampler sees of an `execute_tool` span when it starts (shared). */
export const TOOL_SAMPLING: Attributes = Object.freeze({ [attr.OPERATION]: 'execute_tool' });

type ToolOutcome = 'success' | 'error' | 'rejected' | 'aborted';
const toolOutcomes = new Map<string, Partial<Record<ToolOutcome, Attributes>>>();

/**
 * The `helix.tool.duration` set of a tool and outcome (shared).
 *
 * @example
 * toolDurationAttributes('search', 'success'); // { 'gen_ai.tool.name': 'search', 'helix.tool.outcome': 'success' }
 */
export function toolDurationAttributes(toolName: string, outcome: ToolOutcome): Attributes {
  let byOutcome = toolOutcomes.get(toolName);
  if (byOutcome === undefined) {
    byOutcome = {};
    remember(toolOutcomes, toolName, byOutcome);
  }
  return (byOutcome[outcome] ??= Object.freeze({ [attr.TOOL_NAME]: toolName, [attr.TOOL_OUTCOME]: outcome }));
}

const stepNames = new Map<string, Attributes>();

/**
 * The `helix.agent.step.duration` set of a step name (shared).
 *
 * @example
 * stepNameAttributes('CallLLMStep'); // { 'helix.step.name': 'CallLLMStep' }
 */
export function stepNameAttributes(stepName: string): Attributes {
  const known = stepNames.get(stepName);
  if (known !== undefined) return known;
  const created = Object.freeze({ 'helix.step.name': stepName });
  remember(stepNames, stepName, created);
  return created;
}

/**
 * `provider:model` → [provider, model]; a bare model id → [undefined, model].
 *
 * @example
 * splitModel('openai:gpt-5'); // ['openai', 'gpt-5']
 */
export function splitModel(key: string | undefined): [string | undefined, string | undefined] {
  if (key === undefined) return [undefined, undefined];
  const colon = key.indexOf(':');
  return colon <= 0 ? [undefined, key] : [key.slice(0, colon), key.slice(colon + 1)];
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= CACHED) cache.clear();
  cache.set(key, value);
}
