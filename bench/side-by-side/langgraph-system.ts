import { tool } from '@langchain/core/tools';
import { HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { z } from 'zod';
import type { BenchSystem } from './bench-system.js';
import { ScriptedChatModel } from './scripted-chat-model.js';
import type { StepClock } from './step-clock.js';

/**
 * The LangGraph.js peer: the usual agent loop (`agent` node calling the model, `ToolNode` with one no-op
 * tool, `toolsCondition` between them) compiled with `PostgresSaver` on its own database and invoked with
 * durability "sync" (each step's checkpoint is written before the next step starts), one thread per session.
 *
 * @example
 * const system = await openLangGraphSystem(url);
 */
export async function openLangGraphSystem(databaseUrl: string): Promise<BenchSystem> {
  const checkpointer = PostgresSaver.fromConnString(databaseUrl);
  await checkpointer.setup();
  let clock: StepClock | undefined;
  let steps = 0;
  let toolCalls = 0;
  const model = new ScriptedChatModel({ steps: () => steps, onModelCall: async (call) => clock?.onModelCall(call) });
  const noop = tool(
    async () => {
      toolCalls += 1;
      return JSON.stringify({ ok: true });
    },
    { name: 'noop', description: 'Does nothing.', schema: z.object({}) },
  );
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', new ToolNode([noop]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
  return {
    runSession: async (sessionId, sessionSteps, sessionClock) => {
      clock = sessionClock;
      steps = sessionSteps;
      toolCalls = 0;
      const final = await graph.invoke(
        { messages: [new HumanMessage('Go.')] },
        { configurable: { thread_id: sessionId }, durability: 'sync', recursionLimit: 2 * sessionSteps + 10 },
      );
      if (final.messages.at(-1)?.content !== 'done') throw new Error(`Session ${sessionId} did not end with the scripted answer.`);
      return toolCalls;
    },
    close: () => checkpointer.end(),
  };
}
