import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { ANSWER_TEXT, ANSWER_TOKENS } from './turn-system.js';

/**
 * The LangGraph peer's model in the turn-latency comparison: a LangChain chat model that answers every call with
 * `ANSWER_TOKENS` at once, streamed as one chunk per token when LangChain streams (`_streamResponseChunks`, each
 * chunk also reported to `handleLLMNewToken`, as provider integrations do: that is what LangGraph's
 * `streamMode: 'messages'` forwards). Every invocation reports to `onModelCall` first.
 *
 * @example
 * const model = new StreamingChatModel({ onModelCall: () => marks.modelCalled() });
 */
export class StreamingChatModel extends BaseChatModel {
  private readonly onModelCall: () => void;

  constructor(fields: { onModelCall: () => void } & BaseChatModelParams) {
    const { onModelCall, ...rest } = fields;
    super(rest);
    this.onModelCall = onModelCall;
  }

  /**
   * LangChain's model type tag.
   *
   * @example
   * new StreamingChatModel({ onModelCall: () => undefined })._llmType(); // 'scripted-streaming'
   */
  _llmType(): string {
    return 'scripted-streaming';
  }

  /**
   * The whole answer in one message (LangChain calls this when nothing streams).
   *
   * @example
   * const result = await model._generate([new HumanMessage('Go.')]);
   */
  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    this.onModelCall();
    return { generations: [{ text: ANSWER_TEXT, message: new AIMessage(ANSWER_TEXT) }] };
  }

  /**
   * The answer, one chunk per token.
   *
   * @example
   * for await (const chunk of model._streamResponseChunks([new HumanMessage('Go.')], {})) console.log(chunk.text);
   */
  override async *_streamResponseChunks(_messages: BaseMessage[], _options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    this.onModelCall();
    for (const token of ANSWER_TOKENS) {
      const chunk = new ChatGenerationChunk({ text: token, message: new AIMessageChunk({ content: token }) });
      yield chunk;
      await runManager?.handleLLMNewToken(token, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}
