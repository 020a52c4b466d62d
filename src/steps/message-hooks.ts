import type { HookManager } from '../hooks/index.js';
import type { Message } from '../types/message.js';
import type { ToolOutcome } from './execute-tool.step.js';
import { hookIdentity, type RunScope } from './step-scope.js';

/**
 * Fire onMessage for each committed message in order and, right after a server tool's result message, that
 * tool's afterTool (the canonical … → onMessage → afterTool tail of the tool hook order).
 */
export async function fireMessageHooks(hooks: HookManager, scope: RunScope, messages: readonly Message[], outcomes: readonly ToolOutcome[]): Promise<void> {
  const byMessageId = new Map(outcomes.map((outcome) => [outcome.resultMessageId, outcome]));
  for (const message of messages) {
    await hooks.fire('onMessage', { ...hookIdentity(scope), message });
    const outcome = message.id === undefined ? undefined : byMessageId.get(message.id);
    if (outcome === undefined) continue;
    await hooks.fire('afterTool', {
      ...hookIdentity(scope),
      toolCallId: outcome.toolCallId,
      toolName: outcome.toolName,
      input: outcome.input,
      ...(outcome.success ? { result: outcome.result } : { error: outcome.error }),
      durationMs: outcome.durationMs,
    });
  }
}
