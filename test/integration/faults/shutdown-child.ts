/**
 * Child process of the shutdown drill (`node --import tsx shutdown-child.ts`, configuration in
 * `HELIX_SHUTDOWN_CHILD`, DBOS executor id in `DBOS__VMID`). Everything the README example creates: a Postgres state
 * store, stream manager and usage store on one database.
 * - `start`: a standard run that waits warm for a client tool, one that waits warm for an approval, one whose sub-agent
 *   waits warm for a client tool (its parent waits for the child), a persistent session idle and warm after one
 *   turn, and a persistent session whose turn waits warm for an approval; once all wait, print `shutdown`, then shut down in `order` and return from main WITHOUT process.exit.
 * - `recover`: launch (DBOS recovers the waiting workflows), answer every call, print each run's outcome, then shut
 *   down in the documented order.
 * Events are JSON lines on stdout (`{"event":…}`).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import { createSubAgentTool, defineAgent, defineTool } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { registerAgent } from '../../../src/steps/runtime-registry.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { withIdleTransactionTimeout } from '../../../src/store/postgres/session-timeouts.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { PostgresUsageStore } from '../../../src/usage/postgres/postgres-usage-store.js';
import { SHUTDOWN_CHILD_ENV, SHUTDOWN_SESSIONS, type ShutdownChildConfig } from './shutdown-child-config.js';

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

const pickCity = defineTool({ name: 'pick_city', description: 'Ask the user for a city.', parameters: z.object({ prompt: z.string() }), execute: 'client' });
const transfer = defineTool({
  name: 'transfer',
  description: 'Move money (needs approval).',
  parameters: z.object({ amount: z.number() }),
  requireApproval: true,
  execute: async ({ amount }) => ({ moved: amount }),
});
const asker = defineAgent({ name: 'shutdown_asker', systemPrompt: 'x', tools: [pickCity], outputSchema: z.object({ answer: z.string() }), maxSteps: 3 });
const delegate = createSubAgentTool(asker, z.object({ question: z.string() }), { description: 'Ask the user through the asker.' });
const agent = defineAgent({ name: 'shutdown_drill', systemPrompt: 'x', tools: [pickCity, transfer, delegate], maxSteps: 4 });

/** Ask for a city, ask to transfer, or (after a tool result, or on `hi`) answer with text. */
const llm = new MockLLMAdapter((input) => {
  const last = input.messages.at(-1);
  if (last?.role === 'tool' && input.agentType === asker.name) return { type: 'tool_calls', toolCalls: [{ id: 'call-finish', name: '__finish__', arguments: { answer: 'Bergen' } }] };
  if (last?.role === 'tool') return { type: 'text', text: 'done' };
  const text = typeof last?.content === 'string' ? last.content : '';
  if (input.agentType === asker.name) return { type: 'tool_calls', toolCalls: [{ id: SHUTDOWN_SESSIONS.subAgent.toolCallId, name: 'pick_city', arguments: { prompt: 'Where?' } }] };
  if (text.includes('delegate')) return { type: 'tool_calls', toolCalls: [{ id: 'call-delegate', name: delegate.name, arguments: { question: 'Where?' } }] };
  if (text.includes('pick')) return { type: 'tool_calls', toolCalls: [{ id: SHUTDOWN_SESSIONS.clientTool.toolCallId, name: 'pick_city', arguments: { prompt: 'Where?' } }] };
  if (text.includes('persistent transfer')) return { type: 'tool_calls', toolCalls: [{ id: SHUTDOWN_SESSIONS.approvalPersistent.toolCallId, name: 'transfer', arguments: { amount: 5 } }] };
  if (text.includes('transfer')) return { type: 'tool_calls', toolCalls: [{ id: SHUTDOWN_SESSIONS.approval.toolCallId, name: 'transfer', arguments: { amount: 7 } }] };
  return { type: 'text', text: 'hello' };
});

async function main(): Promise<void> {
  const config = JSON.parse(process.env[SHUTDOWN_CHILD_ENV] ?? '{}') as ShutdownChildConfig;
  const url = withIdleTransactionTimeout(config.databaseUrl);
  const stateStore = new PostgresStateStore({ connectionString: url });
  await stateStore.migrate();
  const streamManager = new PostgresStreamManager({ connectionString: url });
  const usageStore = new PostgresUsageStore({ connectionString: url });
  registerAgent(agent);
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter: llm });
  DBOS.setConfig({ name: 'helix-shutdown-drill', systemDatabaseUrl: url, applicationVersion: 'shutdown-drill-1', logLevel: 'error' });
  await DBOS.launch();

  if (config.mode === 'start') {
    const { clientTool, approval, idlePersistent, approvalPersistent, subAgent } = SHUTDOWN_SESSIONS;
    const started = [
      await executor.execute(agent, 'pick a city', { sessionId: clientTool.sessionId }),
      await executor.execute(agent, 'transfer money', { sessionId: approval.sessionId }),
      await executor.execute(agent, 'persistent transfer', { sessionId: approvalPersistent.sessionId, mode: 'persistent' }),
      await executor.execute(agent, 'delegate a question', { sessionId: subAgent.sessionId }),
    ];
    for (const handle of started) emit({ event: 'started', sessionId: handle.sessionId, runId: handle.runId, workflowId: handle.workflowId });
    const idle = await executor.execute(agent, 'hi', { sessionId: idlePersistent.sessionId, mode: 'persistent' });
    await idle.result();
    // A sub-agent's call is pending on the child session the root's ownership map names.
    const pending = async (sessionId: string, toolCallId: string): Promise<boolean> => {
      const owner = (await stateStore.loadState(sessionId))?.clientToolCallOwnership?.[toolCallId] ?? sessionId;
      return (await stateStore.loadState(owner))?.pendingClientToolCalls?.[toolCallId] !== undefined;
    };
    for (const { sessionId, toolCallId } of [clientTool, approval, approvalPersistent, subAgent]) {
      while (!(await pending(sessionId, toolCallId))) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The waits are entered right after the calls are announced: give them a moment to reach their recv.
    await new Promise((resolve) => setTimeout(resolve, 300));
    emit({ event: 'shutdown', at: Date.now() });
    if (config.order === 'documented') await executor.close();
    await DBOS.shutdown();
    await Promise.all([stateStore.close(), streamManager.close(), usageStore.close()]);
    emit({ event: 'closed', at: Date.now() });
    return;
  }

  const { clientTool, approval, approvalPersistent, subAgent } = SHUTDOWN_SESSIONS;
  const answers = [
    { kind: 'client-tool-result', sessionId: subAgent.sessionId, toolCallId: subAgent.toolCallId, result: { city: 'Bergen' } },
    { kind: 'client-tool-result', sessionId: clientTool.sessionId, toolCallId: clientTool.toolCallId, result: { city: 'Oslo' } },
    { kind: 'approval-response', sessionId: approval.sessionId, toolCallId: approval.toolCallId, approvalId: approval.toolCallId, approved: true },
    { kind: 'approval-response', sessionId: approvalPersistent.sessionId, toolCallId: approvalPersistent.toolCallId, approvalId: approvalPersistent.toolCallId, approved: true },
  ] as const;
  for (const answer of answers) {
    const submitted = await executor.submitToolResult(answer);
    const handle = await executor.getHandle(agent, answer.sessionId);
    const result = await handle?.result();
    emit({ event: 'result', sessionId: answer.sessionId, submitted, status: result?.status, runId: result?.runId });
  }
  await executor.close();
  await DBOS.shutdown();
  await Promise.all([stateStore.close(), streamManager.close(), usageStore.close()]);
  emit({ event: 'closed', at: Date.now() });
}

main().catch((error: unknown) => {
  emit({ event: 'failed', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  process.exitCode = 1;
});
