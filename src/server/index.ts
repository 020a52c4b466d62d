// helix-agents-dbos/server: agents over HTTP. Every export is listed by name.

export { AgentServer, createAgentServer } from './agent-server.js';
export type { AgentServerOptions, AgentServerPrincipal, AgentServerAuthenticate, AgentServerConsoleOptions } from './server-options.js';
export { createHttpAdapter, type FetchHandler } from './node-http-adapter.js';
export { createExpressAdapter, type ExpressRequestHandler } from './express-adapter.js';
export { AgentServerAuthConfigurationError, AgentServerHttpError, type AgentServerErrorCode, type ConsoleErrorCode } from './server-errors.js';
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
export { CHAT_HISTORY_LIMITS, type ChatHistory } from './chat-history.js';
// The console's JSON API (AgentServerOptions.console): its answers, bounds and request schemas.
export {
  CONSOLE_LIMITS,
  type ConsoleAction,
  type ConsoleActionResponse,
  type ConsoleAgentView,
  type ConsoleAgentsResponse,
  type ConsoleCheckpointView,
  type ConsoleHistoryView,
  type ConsolePendingCallView,
  type ConsoleRunSummary,
  type ConsoleRunView,
  type ConsoleSessionCounts,
  type ConsoleSessionDetailResponse,
  type ConsoleSessionListResponse,
  type ConsoleSessionRow,
  type ConsoleSessionState,
  type ConsoleSessionView,
  type ConsoleStartedRun,
  type ConsoleStepView,
  type ConsoleToolCallView,
  type ConsoleToolView,
  type ConsoleTreeNode,
  type ConsoleTreeView,
  type ConsoleUsageView,
  type ConsoleValue,
} from './console/console-api.js';
export {
  consoleSessionListQuerySchema,
  consoleSessionQuerySchema,
  consoleApproveSchema,
  consoleDenySchema,
  consoleSubmitSchema,
  consoleControlSchema,
  consoleResumeSchema,
  consoleRetrySchema,
  consoleBranchSchema,
} from './console/console-schemas.js';
