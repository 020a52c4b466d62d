import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../../src/agent/index.js';
import { createRemoteSubAgentTool, isRemoteSubAgentTool } from '../../../src/remote/remote-sub-agent-tool.js';
import { HttpRemoteAgentTransport } from '../../../src/remote/http-remote-agent-transport.js';

const transport = new HttpRemoteAgentTransport({ url: 'http://127.0.0.1:1/agents/' });
const inputSchema = z.object({ topic: z.string() });

describe('createRemoteSubAgentTool', () => {
  it('builds a remote tool with defaults that an agent accepts', () => {
    const tool = createRemoteSubAgentTool({ agentType: 'researcher', inputSchema, transport });
    expect(tool).toMatchObject({ kind: 'remote', name: 'remote__researcher', agentType: 'researcher', timeoutMs: 1_800_000, streamWindowMs: 30_000, unreachableTimeoutMs: 120_000 });
    expect(isRemoteSubAgentTool(tool)).toBe(true);
    expect(isRemoteSubAgentTool({ kind: 'remote' })).toBe(false);
    expect(defineAgent({ name: 'coordinator', systemPrompt: 'x', tools: [tool] }).tools).toEqual([tool]);
  });

  it.each([
    ['an agent type with spaces', { agentType: 'a b' }],
    ['a reserved name', { name: 'subagent__x' }],
    ['a name too long', { name: 'n'.repeat(65) }],
    ['a non-object input schema', { inputSchema: z.string() }],
    ['a transport without abort', { transport: { start: () => undefined, stream: () => undefined, getStatus: () => undefined, interrupt: () => undefined } }],
    ['a zero window', { streamWindowMs: 0 }],
    ['a fractional timeout', { timeoutMs: 1.5 }],
    ['an empty description', { description: ' ' }],
  ])('refuses %s at definition time', (_label, override) => {
    expect(() => createRemoteSubAgentTool({ agentType: 'researcher', inputSchema, transport, ...(override as object) })).toThrow(
      expect.objectContaining({ code: 'INVALID_TOOL_CONFIG' }),
    );
  });

  it('refuses a transport URL that is not http(s)', () => {
    expect(() => new HttpRemoteAgentTransport({ url: 'ftp://example.com' })).toThrow(expect.objectContaining({ code: 'INVALID_TOOL_CONFIG' }));
    expect(() => new HttpRemoteAgentTransport({ url: 'not a url' })).toThrow(expect.objectContaining({ code: 'INVALID_TOOL_CONFIG' }));
  });
});
