/**
 * Every data request of the console: the console's JSON API (its session streams included) and the chat routes, with
 * the bearer token the user gave (kept in sessionStorage). The page itself holds no data.
 */
import type { UIMessage } from 'ai';
import type { ConsoleAction, ConsoleActionResponse } from '../../src/server/console/console-api.js';

const TOKEN_KEY = 'helix-console-token';

export function readToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function saveToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** The console's API (`{console.path}/api/`, from the page's `<base href>`) and the server's base path. */
export const apiUrl = (path: string): string => new URL(`api/${path}`, document.baseURI).toString();
export const serverUrl = (path: string): string => `${document.querySelector('meta[name="helix-base-path"]')?.getAttribute('content') ?? ''}${path}`;

export function authHeaders(): Record<string, string> {
  const token = readToken();
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function answer<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => null)) as any;
  if (!response.ok) throw new ApiError(response.status, body?.error?.code ?? 'HTTP_ERROR', body?.error?.message ?? `HTTP ${response.status}`);
  return body as T;
}

export async function getJson<T>(path: string): Promise<T> {
  return answer<T>(await fetch(apiUrl(path), { headers: authHeaders() }));
}

export async function act(sessionId: string, action: ConsoleAction, body: object = {}): Promise<ConsoleActionResponse> {
  const response = await fetch(apiUrl(`sessions/${encodeURIComponent(sessionId)}/${action}`), {
    method: 'POST',
    headers: { ...authHeaders(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return answer<ConsoleActionResponse>(response);
}

/**
 * A chat's earlier messages as `UIMessage`s (`GET /chat/{id}/messages`); null for a chat that does not exist yet (a
 * new chat, or one of another principal: the server answers both with the same 404).
 */
export async function chatMessages(chatId: string): Promise<UIMessage[] | null> {
  const response = await fetch(serverUrl(`/chat/${encodeURIComponent(chatId)}/messages`), { headers: authHeaders() });
  if (response.status === 404) return null;
  return (await answer<{ messages: UIMessage[] }>(response)).messages;
}

/** One chunk of a session stream (see the package's `StreamChunk`); the UI reads the fields it shows. */
export interface LiveChunk {
  type: string;
  sequence: number;
  step: number;
  agentId: string;
  delta?: string;
  toolCallId?: string;
  toolName?: string;
}

/**
 * Follow the session's own stream (`GET {console}/api/sessions/{id}/stream`: a companion's too) with fetch (an
 * EventSource cannot send Authorization), from the current run's start or after `lastEventId`; reconnects with
 * `Last-Event-ID` until the stream ends or `signal` aborts.
 */
export async function followSession(sessionId: string, onChunk: (chunk: LiveChunk) => void, signal: AbortSignal): Promise<void> {
  let lastEventId: string | null = null;
  for (let attempt = 0; attempt < 5 && !signal.aborted; attempt++) {
    try {
      const headers: Record<string, string> = { ...authHeaders(), accept: 'text/event-stream' };
      if (lastEventId !== null) headers['last-event-id'] = lastEventId;
      const response = await fetch(apiUrl(`sessions/${encodeURIComponent(sessionId)}/stream`), { headers, signal });
      if (!response.ok || response.body === null) return;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return; // the server ends the stream after the run's last chunk
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n');
          const id = event.split('\n').find((line) => line.startsWith('id:'));
          if (id !== undefined) lastEventId = id.slice(3).trim();
          if (data !== '') onChunk(JSON.parse(data) as LiveChunk);
        }
      }
    } catch {
      if (signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)));
    }
  }
}

export const when = (epochMs: number | undefined): string => (epochMs === undefined ? '' : new Date(epochMs).toLocaleString());
