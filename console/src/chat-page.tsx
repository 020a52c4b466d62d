import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, isToolUIPart, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { ConsoleAgentsResponse } from '../../src/server/console/console-api.js';
import { authHeaders, getJson, serverUrl } from './api.js';

/**
 * A chat with the server's chat agent through `useChat` and the AI SDK chat route (`POST /chat`, the chat id is the
 * session id). After a reload, `resume: true` replays the running answer from its start (`GET /chat/{id}/stream`).
 */
export function ChatPage({ chatId }: { chatId: string }) {
  const [agent, setAgent] = useState<string | null>(null);
  useEffect(() => {
    getJson<ConsoleAgentsResponse>('agents').then((answer) => setAgent(answer.agents.find((item) => item.chat)?.name ?? ''), () => setAgent(''));
  }, []);
  // Headers as a function: the token is read at each request.
  const transport = useMemo(() => new DefaultChatTransport<UIMessage>({ api: serverUrl('/chat'), headers: () => authHeaders() }), []);
  const { messages, sendMessage, status, error, addToolApprovalResponse, stop } = useChat({
    id: chatId,
    transport,
    resume: true,
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
    <section className="chat">
      <h1>Chat {agent !== null && agent !== '' && <span className="badge">{agent}</span>}</h1>
      {agent === '' && <p className="error">This server has no chat agent (AgentServerOptions.chat).</p>}
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
    </section>
  );
}
