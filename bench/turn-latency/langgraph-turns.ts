import { AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { StreamingChatModel } from './streaming-chat-model.js';
import { ANSWER_TEXT, type TurnSystem } from './turn-system.js';

/**
 * The LangGraph.js peer: one `agent` node calling the streaming scripted model (no tools, like our agent),
 * compiled with `PostgresSaver` on its own database, one thread per session. A turn is `graph.stream(...)` with
 * `streamMode: 'messages'` and durability "sync" (each checkpoint written before the graph goes on), read to its
 * end. `graph.stream()` resolves once its first item is ready (LangChain primes the stream), so its "returned"
 * mark falls at about the first token; the final result is the stream's end (the last checkpoint is written).
 *
 * @example
 * const system = await openLangGraphTurns(url);
 */
export async function openLangGraphTurns(databaseUrl: string): Promise<TurnSystem> {
  const checkpointer = PostgresSaver.fromConnString(databaseUrl);
  await checkpointer.setup();
  const system: TurnSystem = {
    onModelCall: () => undefined,
    runTurn: async (sessionId, message, marks) => {
      const stream = await graph.stream({ messages: [new HumanMessage(message)] }, { configurable: { thread_id: sessionId }, durability: 'sync', streamMode: 'messages' });
      marks.returned();
      let text = '';
      for await (const [chunk] of stream) {
        if (!AIMessageChunk.isInstance(chunk) || typeof chunk.content !== 'string' || chunk.content === '') continue;
        marks.firstToken();
        text += chunk.content;
      }
      marks.finished();
      if (text !== ANSWER_TEXT) throw new Error(`A turn of ${sessionId} streamed "${text}" instead of the scripted answer.`);
    },
    close: () => checkpointer.end(),
  };
  const model = new StreamingChatModel({ onModelCall: () => system.onModelCall() });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addEdge(START, 'agent')
    .addEdge('agent', END)
    .compile({ checkpointer });
  return system;
}
