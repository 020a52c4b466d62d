import { wrapLanguageModel, type LanguageModel } from 'ai';
import type { ToolArgumentLimits } from '../../orchestration/tool-argument-limits.js';

const encoder = new TextEncoder();

/**
 * The deepest nesting of objects and arrays in JSON `text`, scanned without parsing (strings and escapes skipped),
 * stopping once past `limit`. A 10,000-deep text costs one pass and no stack.
 *
 * @example
 * jsonTextDepth('{"a":[1,{"b":"]"}]}', 64); // 3
 */
export function jsonTextDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
    } else if (character === '{' || character === '[') {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (character === '}' || character === ']') {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * Why a tool call's argument text breaks the limits (a fixed text naming the limit), or undefined.
 *
 * @example
 * argumentTextViolation('{"a":1}', { maxDepth: 64, maxBytes: 1024 }); // undefined
 */
export function argumentTextViolation(text: string, limits: ToolArgumentLimits): string | undefined {
  // Length ≤ bytes ≤ 3 × length: encode only when the length alone cannot decide.
  if (text.length > limits.maxBytes || (text.length * 3 > limits.maxBytes && encoder.encode(text).length > limits.maxBytes)) {
    return `The arguments are larger than ${limits.maxBytes} bytes. Call the tool again with smaller arguments.`;
  }
  if (jsonTextDepth(text, limits.maxDepth) > limits.maxDepth) {
    return `The arguments nest deeper than ${limits.maxDepth} levels. Call the tool again with smaller arguments.`;
  }
  return undefined;
}

/**
 * Wrap a model so that tool-call arguments past `limits` are replaced by `{}` before the AI SDK parses them (a
 * deeply nested text would overflow its parser) and reported in `rejected` (tool call id → model-facing reason).
 *
 * @example
 * const rejected = new Map<string, string>();
 * const guarded = guardToolArguments(model, limits, rejected);
 */
export function guardToolArguments(model: LanguageModel, limits: ToolArgumentLimits, rejected: Map<string, string>): LanguageModel {
  if (typeof model === 'string') return model;
  return wrapLanguageModel({
    model: model as Parameters<typeof wrapLanguageModel>[0]['model'],
    middleware: {
      specificationVersion: 'v3',
      wrapStream: async ({ doStream }) => {
        const { stream, ...rest } = await doStream();
        const screen = new TransformStream<
          typeof stream extends ReadableStream<infer Part> ? Part : never,
          typeof stream extends ReadableStream<infer Part> ? Part : never
        >({
          transform(part, controller) {
            if (part.type !== 'tool-call') return controller.enqueue(part);
            const violation = argumentTextViolation(part.input, limits);
            if (violation === undefined) return controller.enqueue(part);
            rejected.set(part.toolCallId, violation);
            controller.enqueue({ ...part, input: '{}' });
          },
        });
        return { ...rest, stream: stream.pipeThrough(screen) };
      },
    },
  });
}
