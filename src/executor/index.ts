export { DBOSAgentExecutor } from './dbos-agent-executor.js';
export type { AgentExecutionHandle, DBOSAgentExecutorConfig, ExecuteOptions } from './types.js';
