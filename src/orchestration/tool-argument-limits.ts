import type { StepResult } from '../types/llm.js';

/**
 * Bounds on the tool arguments a model may send. Arguments past them are not parsed, stored or checkpointed: the
 * call is answered with a short tool error the model can read, and the run goes on.
 *
 * @example
 * const limits: ToolArgumentLimits = { maxDepth: 32, maxBytes: 64 * 1024 };
 */
export interface ToolArgumentLimits {
  /** Deepest nesting of objects and arrays (default 64). */
  maxDepth: number;
  /** Largest JSON size in bytes of one call's arguments (default 256 KiB). */
  maxBytes: number;
}

/**
 * The default limits: 64 levels, 256 KiB per call.
 *
 * @example
 * new DBOSAgentExecutor({ ...config, toolArgumentLimits: { ...DEFAULT_TOOL_ARGUMENT_LIMITS, maxBytes: 1 << 20 } });
 */
export const DEFAULT_TOOL_ARGUMENT_LIMITS: Readonly<ToolArgumentLimits> = Object.freeze({ maxDepth: 64, maxBytes: 256 * 1024 });

/**
 * How deep `value` nests, counting without recursion (a 10,000-deep value cannot overflow the stack), stopping once
 * past `limit`.
 *
 * @example
 * nestingDepth({ a: [1, { b: 2 }] }, 64); // 3
 */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return deepest;
}

const encoder = new TextEncoder();

/**
 * The reason a call's arguments break the limits (a fixed text naming the limit), or undefined.
 *
 * @example
 * argumentViolation(deep, DEFAULT_TOOL_ARGUMENT_LIMITS); // 'The arguments nest deeper than 64 levels.'
 */
export function argumentViolation(value: unknown, limits: ToolArgumentLimits): string | undefined {
  if (nestingDepth(value, limits.maxDepth) > limits.maxDepth) return `The arguments nest deeper than ${limits.maxDepth} levels.`;
  const bytes = encoder.encode(JSON.stringify(value) ?? '').length;
  if (bytes > limits.maxBytes) return `The arguments are larger than ${limits.maxBytes} bytes.`;
  return undefined;
}

/**
 * Replace the arguments of every tool call that breaks the limits with `{}` and report it as an invalid call (its
 * error names the limit, never the content), so nothing oversized reaches the checkpoint, the history or the next
 * prompt. Pure; returns the result unchanged when every call is within the limits.
 *
 * @example
 * const screened = screenToolCalls(result, DEFAULT_TOOL_ARGUMENT_LIMITS);
 */
export function screenToolCalls(result: StepResult, limits: ToolArgumentLimits): StepResult {
  const rejected = new Map<string, { toolName: string; error: string }>();
  for (const call of result.toolCalls) {
    const violation = argumentViolation(call.arguments, limits);
    if (violation !== undefined) rejected.set(call.id, { toolName: call.name, error: `${violation} Call the tool again with smaller arguments.` });
  }
  if (rejected.size === 0) return result;
  return {
    ...result,
    toolCalls: result.toolCalls.map((call) => (rejected.has(call.id) ? { ...call, arguments: {} } : call)),
    invalidToolCalls: [
      ...(result.invalidToolCalls ?? []).filter((invalid) => !rejected.has(invalid.toolCallId)),
      ...[...rejected].map(([toolCallId, { toolName, error }]) => ({ toolCallId, toolName, error })),
    ],
  };
}
