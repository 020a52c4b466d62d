import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, isToolUIPart, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { ConsoleAgentsResponse } from '../../src/server/console/console-api.js';
import { authHeaders, chatMessages, getJson, serverUrl } from './api.js';

/**
 * A chat with the server's chat agent through `useChat` and the AI SDK chat route (`POST /chat`, the chat id is the
 * session id). The session's earlier messages are loaded first (`GET /chat/{id}/messages`) as `useChat`'s initial
 * messages; then, for a chat that exists, `resume: true` replays a running answer from its start (`GET /chat/{id}/stream`),
 * replacing the restored copy of it (same message id). A new chat (no session yet) starts empty.
 */
export function ChatPage({ chatId }: { chatId: string }) {
  const [agent, setAgent] = useState<string | null>(null);
  const [history, setHistory] = useState<UIMessage[] | 'new' | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    getJson<ConsoleAgentsResponse>('agents').then((answer) => setAgent(answer.agents.find((item) => item.chat)?.name ?? ''), () => setAgent(''));
  }, []);
  useEffect(() => {
    chatMessages(chatId).then((messages) => setHistory(messages ?? 'new'), (error: Error) => setFailure(error.message));
  }, [chatId]);
  return (
    <section className="chat">
      <h1>Chat {agent !== null && agent !== '' && <span className="badge">{agent}</span>}</h1>
      {agent === '' && <p className="error">This server has no chat agent (AgentServerOptions.chat).</p>}
      {failure !== null && <p className="error">{failure}</p>}
      {history === null ? failure === null && <p>Loading…</p> : <Conversation chatId={chatId} initial={history === 'new' ? [] : history} resume={history !== 'new'} />}
    </section>
  );
}

/** `useChat` from the restored messages. Each request sends only the last message: the server keeps the rest. */
function Conversation({ chatId, initial, resume }: { chatId: string; initial: UIMessage[]; resume: boolean }) {
  // Headers as a function: the token is read at each request.
  const transport = useMemo(
    () =>
      new DefaultChatTransport<UIMessage>({
        api: serverUrl('/chat'),
        headers: () => authHeaders(),
        prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({ body: { id, messages: messages.slice(-1), trigger, messageId } }),
      }),
    [],
  );
  const { messages, sendMessage, status, error, addToolApprovalResponse, stop } = useChat({
    id: chatId,
    messages: initial,
    transport,
    resume,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (input.trim() === '') return;
    void sendMessage({ text: input });
    setInput('');
  };

  return (
    <>
      <p className="meta">
        session <a href={`#/sessions/${encodeURIComponent(chatId)}`}>{chatId}</a> · <span data-testid="chat-status">{status}</span>
      </p>
      <div className="messages" data-testid="messages">
        {messages.map((message) => (
          <div key={message.id} className={`message ${message.role}`} data-role={message.role}>
            {message.parts.map((part, index) => {
              if (part.type === 'text') return <p key={index} className="text">{part.text}</p>;
              if (!isToolUIPart(part)) return null;
              const name = part.type.replace(/^tool-/, '');
              return (
                <div key={part.toolCallId} className="tool card" data-tool={name} data-state={part.state}>
                  <details>
                    <summary>
                      {name} <span className="badge">{part.state}</span>
                    </summary>
                    <pre>{JSON.stringify(part.input, null, 2)}</pre>
                    {part.state === 'output-available' && <pre>{JSON.stringify(part.output, null, 2)}</pre>}
                  </details>
                  {part.state === 'approval-requested' && (
                    <p>
                      <button onClick={() => void addToolApprovalResponse({ id: part.approval.id, approved: true })}>Approve</button>{' '}
                      <button className="danger" onClick={() => void addToolApprovalResponse({ id: part.approval.id, approved: false, reason: 'Denied in the console' })}>
                        Deny
                      </button>
                    </p>
                  )}
                </div>
              );
            })}
          </div>
        ))}
      </div>
      {error !== undefined && <p className="error">{error.message}</p>}
      <form onSubmit={submit} className="composer">
        <input aria-label="Message" value={input} onChange={(event) => setInput(event.target.value)} placeholder="Say something" />
        <button type="submit" disabled={status === 'streaming' || status === 'submitted'}>
          Send
        </button>
        {(status === 'streaming' || status === 'submitted') && (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        )}
      </form>
    </>
  );
}
