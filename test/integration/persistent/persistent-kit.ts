import { DBOS } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { AgentStartEvent } from '../../../src/hooks/types.js';
import { readPersistentMarker, type PersistentMarker } from '../../../src/orchestration/persistent-session.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import type { LLMGenerateInput } from '../../../src/types/llm.js';
import type { PersistentSessionResult } from '../../../src/workflows/persistent.workflow.js';

/** onAgentStart events of the chat agent. */
export const starts: AgentStartEvent[] = [];

/** A tool that waits `ms` (abortable) and answers `slept`. */
export const nap = defineTool({
  name: 'nap',
  description: 'Wait',
  parameters: z.object({ ms: z.number().int().nonnegative() }),
  execute: async ({ ms }, context) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      context.abortSignal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { slept: ms };
  },
});

/** A client-executed tool (a human answers it). */
export const askUser = defineTool({ name: 'ask_user', description: 'Ask the user', parameters: z.object({ question: z.string() }), execute: 'client' });

/** The persistent chat agent of these tests. */
export const chat = defineAgent({
  name: 'chat',
  systemPrompt: 'Chat.',
  tools: [nap, askUser],
  maxSteps: 3,
  hooks: { onAgentStart: (event) => void starts.push(event) },
});

/** The last user message text of an LLM input. */
export function lastUserText(input: LLMGenerateInput): string {
  const message = [...input.messages].reverse().find((candidate) => candidate.role === 'user');
  return typeof message?.content === 'string' ? message.content : '';
}

/** Every user message text of an LLM input, in order. */
export function userTexts(input: LLMGenerateInput): string[] {
  return input.messages.flatMap((message) => (message.role === 'user' && typeof message.content === 'string' ? [message.content] : []));
}

/** The session's persistent marker. */
export async function markerOf(stateStore: SessionStateStore, sessionId: string): Promise<PersistentMarker | undefined> {
  return readPersistentMarker((await stateStore.loadState(sessionId))?.metadata);
}

/** The outcome of a persistent session's workflow (waits for it to end). */
export async function workflowEnd(workflowId: string): Promise<PersistentSessionResult> {
  return DBOS.retrieveWorkflow<PersistentSessionResult>(workflowId).getResult();
}

/** Poll `check` until it returns true (bounded). */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
