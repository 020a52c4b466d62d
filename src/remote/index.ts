// Remote sub-agents: a tool that delegates to an agent on another AgentServer, and the HTTP transport.
export { createRemoteSubAgentTool, isRemoteSubAgentTool, REMOTE_TOOL_PREFIX, type RemoteSubAgentToolOptions } from './remote-sub-agent-tool.js';
export { HttpRemoteAgentTransport, type HttpRemoteAgentTransportOptions, type RemoteHeaders } from './http-remote-agent-transport.js';
export { startResponseSchema, statusResponseSchema } from './remote-wire.js';
