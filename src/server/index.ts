// helix-agents-dbos/server: agents over HTTP. Every export is listed by name.

export { AgentServer, createAgentServer } from './agent-server.js';
export type { AgentServerOptions, AgentServerPrincipal, AgentServerAuthenticate } from './server-options.js';
export { createHttpAdapter, type FetchHandler } from './node-http-adapter.js';
export { createExpressAdapter, type ExpressRequestHandler } from './express-adapter.js';
export { AgentServerAuthConfigurationError, AgentServerHttpError, type AgentServerErrorCode } from './server-errors.js';
export {
  UIMessageChunkMapper,
  mapStreamChunksToUI,
  type UIMessageChunkMapperOptions,
  type KnownToolCalls,
} from './ui-message-chunks.js';
export {
  sessionIdSchema,
  startRequestSchema,
  resumeRequestSchema,
  controlRequestSchema,
  chatControlRequestSchema,
  submitRequestSchema,
  chatSubmitRequestSchema,
  sseQuerySchema,
  statusQuerySchema,
  chatMessageSchema,
  chatRequestSchema,
} from './wire-schemas.js';
// The responses a remote parent reads (its HttpRemoteAgentTransport validates them with these).
export { startResponseSchema, statusResponseSchema } from '../remote/remote-wire.js';
