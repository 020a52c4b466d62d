import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { scriptedTurn } from './bench-system.js';

/**
 * The LangGraph peer's model: a LangChain chat model following the benchmark's script. Model call n (n =
 * AI messages in the input + 1) reports to `onModelCall`, then asks for one `noop` tool call while
 * n ≤ `steps()`, else answers "done". Costs ~0 ms, like the other systems' scripted models.
 *
 * @example
 * const model = new ScriptedChatModel({ steps: () => 200, onModelCall: (call) => clock.onModelCall(call) });
 */
export class ScriptedChatModel extends BaseChatModel {
  private readonly steps: () => number;
  private readonly onModelCall: (call: number) => Promise<void>;

  constructor(fields: { steps: () => number; onModelCall: (call: number) => Promise<void> } & BaseChatModelParams) {
    const { steps, onModelCall, ...rest } = fields;
    super(rest);
    this.steps = steps;
    this.onModelCall = onModelCall;
  }

  /**
   * LangChain's model type tag.
   *
   * @example
   * new ScriptedChatModel({ steps: () => 1, onModelCall: async () => {} })._llmType(); // 'scripted'
   */
  _llmType(): string {
    return 'scripted';
  }

  /**
   * Play the script for this input.
   *
   * @example
   * const result = await model._generate([new HumanMessage('Go.')], {});
   */
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const call = messages.filter((message) => AIMessage.isInstance(message)).length + 1;
    await this.onModelCall(call);
    const message =
      scriptedTurn(call, this.steps()) === 'tool'
        ? new AIMessage({ content: '', tool_calls: [{ id: `noop-${call}`, name: 'noop', args: {}, type: 'tool_call' }] })
        : new AIMessage('done');
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}
