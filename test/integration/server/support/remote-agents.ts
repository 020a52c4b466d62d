/**
 * The coordinator of the remote sub-agent tests: an agent whose tools delegate to `assistant` on another
 * agent server (over HttpRemoteAgentTransport, as alice). `remote__assistant` waits up to 60 s for an
 * unreachable server; `remote_fragile` gives up after 2 s; `remote_hasty` waits at most 2 s for the remote run. Stream windows are short (1.5 s), so a run spans
 * several durable windows.
 */
import { z } from 'zod';
import { defineAgent } from '../../../../src/agent/index.js';
import { createRemoteSubAgentTool } from '../../../../src/remote/remote-sub-agent-tool.js';
import { HttpRemoteAgentTransport } from '../../../../src/remote/http-remote-agent-transport.js';

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
    ],
  });
}
