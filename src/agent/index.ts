export { defineAgent } from './define-agent.js';
export { defineTool, type ServerToolDefinition, type ClientToolDefinition } from './define-tool.js';
export {
  defineTransactionalTool,
  isTransactionalTool,
  firstTransactionalToolName,
  type TransactionalToolContext,
  type TransactionalToolDefinition,
  type TransactionClient,
} from './transactional-tool.js';
export { createSubAgentTool, isSubAgentTool, type SubAgentToolOptions } from './sub-agent-tool.js';
export { createFinishTool, isFinishTool } from './finish-tool.js';
export { createCompanionTools, companionToolName, isCompanionTool } from './companion-tools.js';
export { COMPANION_ACTIONS, type CompanionAction } from './companion-action.js';
export { collectEffectiveTools } from './effective-tools.js';
export { toToolSchemas } from './tool-schemas.js';
export { isZodSchema } from './zod-schema.js';
export {
  FINISH_TOOL_NAME,
  SUBAGENT_TOOL_PREFIX,
  COMPANION_TOOL_PREFIX,
  RESERVED_TOOL_NAMES,
  TOOL_NAME_PATTERN,
  isValidToolName,
} from './tool-names.js';
export {
  resolvePersistentAgents,
  type PersistentAgentConfig,
  type PersistentAgentMode,
  type ResolvedPersistentAgent,
} from './persistent-agent.js';
export type {
  AgentConfig,
  AgentDefinition,
  AgentInput,
  AgentToolInput,
  AnyAgentConfig,
  StopWhen,
  StopWhenContext,
  SystemPrompt,
} from './agent-types.js';
export type {
  AgentTool,
  ApprovalPredicate,
  ClientTool,
  CompanionTool,
  FinishTool,
  ServerTool,
  SubAgentTool,
  RemoteSubAgentTool,
  ToolBase,
  ToolContext,
  ToolExecuteFunction,
  ToolKind,
  UserTool,
} from './tool-types.js';
