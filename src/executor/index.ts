export { DBOSAgentExecutor } from './dbos-agent-executor.js';
export { resolveOwnerWorkflowId, type SubmitToolResult, type SubmitToolResultResponse } from './submit-tool-result.js';
export type { AgentExecutionHandle, DBOSAgentExecutorConfig, ExecuteOptions, ResumeOptions, RetryOptions } from './types.js';
export { DEFAULT_CLOSE_TIMEOUT_MS, type CloseOptions } from './executor-close.js';
