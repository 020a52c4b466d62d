import type { z } from 'zod';

import type { FinishTool } from './tool-types.js';
import { FINISH_TOOL_NAME } from './tool-names.js';

const FINISH_TOOL_DESCRIPTION =
  'Call this tool once the task is complete, passing the final result as its arguments. ' +
  'The arguments must match the schema exactly; nothing else runs after a successful call.';

/**
 * Build the `__finish__` tool for an output schema (done for you by `buildEffectiveTools`).
 *
 * @example
 * const finish = createFinishTool(z.object({ answer: z.string() }));
 * finish.name; // '__finish__'
 */
export function createFinishTool<TSchema extends z.ZodType>(outputSchema: TSchema): FinishTool<TSchema> {
  return Object.freeze({
    kind: 'finish' as const,
    name: FINISH_TOOL_NAME,
    description: FINISH_TOOL_DESCRIPTION,
    parameters: outputSchema,
  });
}

/**
 * True for the `__finish__` tool, given the tool or its name.
 *
 * @example
 * isFinishTool(toolCall.name);
 */
export function isFinishTool(toolOrName: string | { name: string }): boolean {
  return (typeof toolOrName === 'string' ? toolOrName : toolOrName.name) === FINISH_TOOL_NAME;
}
