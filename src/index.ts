// Public API of helix-agents-dbos. Every export is listed by name.

// Runtime
export {
  DBOSAgentExecutor,
  DEFAULT_CLOSE_TIMEOUT_MS,
  resolveOwnerWorkflowId,
  type CloseOptions,
  type AgentExecutionHandle,
  type DBOSAgentExecutorConfig,
  type ExecuteOptions,
  type ResumeOptions,
  type RetryOptions,
  type SubmitToolResult,
  type SubmitToolResultResponse,
} from './executor/index.js';
export { ClientToolStep } from './steps/client-tool.step.js';
export { ApprovalGateStep } from './steps/approval-gate.step.js';
export { TransactionalToolStep } from './steps/transactional-tool.step.js';
export { APP_DATABASE_SOURCE_NAME, type AppDatabaseConfig } from './database/app-database.js';
export { SubAgentStep, type ChildPreparation, type SubAgentStepInput } from './steps/sub-agent.step.js';
export { registerDBOSAgentWorkflows } from './workflows/agent.workflow.js';
export type { PersistentSessionResult } from './workflows/persistent.workflow.js';
export {
  readPersistentMarker,
  persistentRestartWorkflowId,
  type PersistentMarker,
  type PersistentPhase,
  type PersistentEndReason,
} from './orchestration/persistent-session.js';
export { standardWorkflowId, persistentWorkflowId, checkpointIdFor } from './orchestration/ids.js';
export { registerAgent, bindCallLLMStep } from './steps/runtime-registry.js';
export { DEFAULT_TOOL_RETRY_POLICY, type ToolRetryPolicy } from './steps/tool-retry-policy.js';
export type { PruneOptions, PruneResult } from './executor/retention.js';
export { isParkedRunStatus } from './orchestration/session-transitions.js';
export { DEFAULT_TOOL_ARGUMENT_LIMITS, type ToolArgumentLimits } from './orchestration/tool-argument-limits.js';
export type { QueueOptions, QueuePlacement } from './orchestration/queue-placement.js';
export { FleetMember, type FleetMemberOptions } from './fleet/fleet-member.js';
export { PostgresModelLimiter, type PostgresModelLimiterOptions } from './limits/postgres-model-limiter.js';
export type { ModelLimit, ModelLimiter, ModelPermit, PeriodBudget, PermitAnswer } from './limits/model-limits.js';
export { HelixIdGenerator, SEMCONV_VERSION, formatTraceparent, parseTraceparent, runSpanId, sessionTraceId, toolSpanId, type TelemetryOptions } from './telemetry/index.js';

// Agent model
export {
  defineAgent,
  defineTool,
  defineTransactionalTool,
  isTransactionalTool,
  createSubAgentTool,
  isSubAgentTool,
  createCompanionTools,
  companionToolName,
  isCompanionTool,
  COMPANION_ACTIONS,
  FINISH_TOOL_NAME,
  SUBAGENT_TOOL_PREFIX,
  COMPANION_TOOL_PREFIX,
  RESERVED_TOOL_NAMES,
  type AgentConfig,
  type AgentDefinition,
  type AgentInput,
  type AnyAgentConfig,
  type StopWhen,
  type StopWhenContext,
  type SystemPrompt,
  type AgentTool,
  type ApprovalPredicate,
  type ClientTool,
  type CompanionTool,
  type CompanionAction,
  type FinishTool,
  type ServerTool,
  type SubAgentTool,
  type ToolContext,
  type TransactionalToolContext,
  type TransactionalToolDefinition,
  type TransactionClient,
  type UserTool,
  type PersistentAgentConfig,
  type PersistentAgentMode,
} from './agent/index.js';

// Remote sub-agents
export {
  createRemoteSubAgentTool,
  isRemoteSubAgentTool,
  REMOTE_TOOL_PREFIX,
  HttpRemoteAgentTransport,
  type RemoteSubAgentToolOptions,
  type HttpRemoteAgentTransportOptions,
  type RemoteHeaders,
} from './remote/index.js';
export type { RemoteSubAgentTool } from './agent/index.js';
export type {
  RemoteAgentTransport,
  RemoteAgentStartOptions,
  RemoteAgentStartRequest,
  RemoteAgentStartResult,
  RemoteAgentStatus,
  RemoteAgentStreamOptions,
} from './types/remote.js';

// Storage
export { withIdleTransactionTimeout, DEFAULT_IDLE_TRANSACTION_TIMEOUT_MS } from './store/postgres/session-timeouts.js';
export { PostgresStateStore, runMigrations, openCallsOf, openCallsOfDescendants, type SessionStateStore, type SessionListPage, type SessionListQuery, type SessionSummary, type PostgresStateStoreOptions, type PostgresStateStoreConnection } from './store/index.js';
export { PostgresUsageStore, InMemoryUsageStore, type UsageStore, type PostgresUsageStoreOptions } from './usage/index.js';
// What a component declares (`stepRecords`) to commit its writes in the fused journal's step record transaction.
export type { StepRecordConnection, StepRecordOutcome, StepRecordParticipant } from './types/step-records.js';
export type { StartWriteOptions, StateStoreStepRecords, StepCommitOnConnection } from './store/index.js';
export type { UsageStoreStepRecords } from './usage/index.js';

// Streams
export {
  PostgresStreamManager,
  RedisStreamManager,
  isTerminalStatus,
  type StreamManager,
  type StreamReader,
  type StreamWriter,
  type StreamWriteOptions,
  type CleanupOptions,
  type ChunkHandover,
  type StreamManagerStepRecords,
  type PostgresStreamConnection,
  type PostgresStreamManagerOptions,
  type RedisStreamConnection,
  type RedisStreamManagerOptions,
} from './stream/index.js';

// LLM
export { VercelAIAdapter, type VercelAIAdapterOptions, type LLMAdapter } from './llm/index.js';
export { anthropicCache } from './llm/anthropic-cache.js';

// Skills
export {
  inCodeSkillProvider,
  fileSystemSkillProvider,
  parseSkillFile,
  SKILL_LOADED_EVENT,
  SkillPathRefusedError,
  type FileSystemSkillProviderOptions,
  type ParsedSkillFile,
} from './skills/index.js';
export { generateSkillsSystemPromptFragment, LOAD_SKILL_TOOL_NAME, READ_SKILL_FILE_TOOL_NAME } from './orchestration/skill-catalog.js';
export { collectLoadedSkillNames } from './orchestration/loaded-skills.js';
export type { Skill, SkillDefinition, SkillMetadata, SkillProvider, ReadResourceRange } from './types/skill.js';

// Hooks and logging
export { HookManager, consoleLogger, noopLogger } from './hooks/index.js';
export type { AgentHooks, HookName, Logger } from './hooks/types.js';

// Errors
export {
  HelixError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
  StaleStateError,
  ConfigurationError,
  InvalidArgumentError,
  LLMCallError,
  StreamError,
  StoreError,
  SessionIdRequiredError,
  DBOSModeMismatchError,
  DBOSWorkflowNotFoundError,
  DBOSPersistentSessionTerminatedError,
  AgentAlreadyRunningError,
  WorkspaceUnsupportedError,
  SessionNotContinuableError,
  InvalidSubmissionError,
  NotResumableError,
  SessionAgentMismatchError,
  DBOSStepContextError,
  DBOSForkRefusedError,
  JournalFormatUnsupportedError,
  ExecutorIdInUseError,
  InternalError,
  ToolContractError,
  RemoteAgentTransportError,
  RemoteSubAgentClientToolUnsupportedError,
  type HelixErrorCode,
  type ConfigurationErrorCode,
} from './errors/index.js';

// Types
export type { Message, StoredMessage, ToolCall, AssistantMessage, UserMessage, ToolResultMessage, SystemMessage } from './types/message.js';
export type {
  SessionState,
  SessionStatus,
  RunStatus,
  RunRecord,
  Checkpoint,
  CompletionReason,
  DBOSAgentMode,
  PendingClientToolCall,
  SubSessionRef,
} from './types/session.js';
export type { StepCommitReport } from './types/step-commit-report.js';
export type { RunSuspendedChunk, StreamChunk, StreamChunkType, StreamInfo } from './types/stream.js';
export type { StepResult, TokenUsage, LLMConfig, LLMGenerateInput, ToolSchema, CacheStrategy, AnthropicCacheStrategy } from './types/llm.js';
export type { AgentResult, SuspendedCall, SuspensionInfo } from './types/result.js';
export type { UsageRecord, UsageSummary } from './types/usage.js';
export type { JsonPatchOperation } from './types/json-patch.js';
