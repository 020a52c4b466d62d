/**
 * The coordinator of the remote sub-agent tests: an agent whose tools delegate to `assistant` on another
 * agent server (over HttpRemoteAgentTransport, as alice). `remote__assistant` waits up to 60 s for an
 * unreachable server; `remote_fragile` gives up after 2 s; `remote_hasty` waits at most 2 s for the remote run. Stream windows are short (1.5 s), so a run spans
 * several durable windows. `remote_cut` goes through {@link CutBeforeLastChunk}.
 */
import { z } from 'zod';
import { defineAgent } from '../../../../src/agent/index.js';
import { createRemoteSubAgentTool } from '../../../../src/remote/remote-sub-agent-tool.js';
import { HttpRemoteAgentTransport } from '../../../../src/remote/http-remote-agent-transport.js';
import type { RemoteAgentStartRequest, RemoteAgentStreamOptions, RemoteAgentTransport } from '../../../../src/types/remote.js';
import type { StreamChunk } from '../../../../src/types/stream.js';

/** Window length of the coordinator's remote tools. */
export const REMOTE_WINDOW_MS = 1_500;

/** The coordinator agent, talking to the agent server at `remoteUrl`. */
export function coordinatorAgent(remoteUrl: string) {
  const transport = new HttpRemoteAgentTransport({ url: remoteUrl, headers: () => ({ authorization: 'Bearer token-alice' }), requestTimeoutMs: 5_000 });
  const task = z.object({ task: z.string() });
  return defineAgent({
    name: 'coordinator',
    systemPrompt: 'Delegate.',
    maxSteps: 4,
    tools: [
      createRemoteSubAgentTool({ agentType: 'assistant', inputSchema: task, transport, streamWindowMs: REMOTE_WINDOW_MS, unreachableTimeoutMs: 60_000, timeoutMs: 120_000 }),
      createRemoteSubAgentTool({ name: 'remote_fragile', agentType: 'assistant', inputSchema: task, transport, streamWindowMs: REMOTE_WINDOW_MS, unreachableTimeoutMs: 2_000 }),
      createRemoteSubAgentTool({ name: 'remote_hasty', agentType: 'assistant', inputSchema: task, transport, streamWindowMs: REMOTE_WINDOW_MS, timeoutMs: 2_000 }),
      createRemoteSubAgentTool({ name: 'remote_cut', agentType: 'assistant', inputSchema: task, transport: new CutBeforeLastChunk(transport), streamWindowMs: REMOTE_WINDOW_MS }),
    ],
  });
}

/**
 * The HTTP transport, except that the first window reaching a session's `output` chunk holds it back until the
 * window's time limit ends the read: the window is cut just before the run's last chunk while the remote run
 * completes, the race a short window meets by chance. A parent that then trusts `getStatus()` alone loses the chunk.
 */
export class CutBeforeLastChunk implements RemoteAgentTransport {
  readonly #cut = new Set<string>();

  constructor(private readonly inner: RemoteAgentTransport) {}

  start = (request: RemoteAgentStartRequest) => this.inner.start(request);
  getStatus = (sessionId: string) => this.inner.getStatus(sessionId);
  interrupt = (sessionId: string, reason?: string) => this.inner.interrupt(sessionId, reason);
  abort = (sessionId: string, reason?: string) => this.inner.abort(sessionId, reason);

  async *stream(sessionId: string, options: RemoteAgentStreamOptions): AsyncGenerator<StreamChunk> {
    for await (const chunk of this.inner.stream(sessionId, options)) {
      if (chunk.type === 'output' && chunk.agentId === sessionId && !this.#cut.has(sessionId)) {
        this.#cut.add(sessionId);
        await new Promise<void>((resolve) => (options.signal?.aborted !== false ? resolve() : options.signal.addEventListener('abort', () => resolve(), { once: true })));
        return;
      }
      yield chunk;
    }
  }
}
