export { buildEffectiveTools, findEffectiveTool } from './build-effective-tools.js';
export { buildMessagesForLLM } from './build-messages-for-llm.js';
export { findUnpairedFinishCallId, synthesizeFinishToolResult, type SynthesizeFinishOptions } from './finish-history.js';
export {
  checkpointIdFor,
  ephemeralChildSessionId,
  isSuspendedCheckpointId,
  messageId,
  persistentChildSessionId,
  persistentWorkflowId,
  standardWorkflowId,
  suspendedCheckpointId,
} from './ids.js';
export {
  initializeAgentState,
  type InitializeAgentStateOptions,
  type InitializedAgentState,
} from './initialize-agent-state.js';
export {
  createAssistantMessage,
  createToolResultMessage,
  type AssistantMessageOptions,
  type ToolResultInput,
} from './message-builder.js';
export { planStepProcessing } from './plan-step-processing.js';
export { formatSchemaIssues } from './schema-issues.js';
export type {
  PlannedApprovalCall,
  PlannedCompanionCall,
  PlannedFinishCall,
  PlannedSubAgentCall,
  PlannedRemoteCall,
  PlannedToolCall,
  PlannedToolError,
  StepPlanningContext,
  StepProcessingPlan,
  ToolErrorReason,
} from './step-plan-types.js';
export { shouldStopExecution, type StopCheckInput, type StopDecision } from './stop-checker.js';
