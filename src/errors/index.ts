export { HelixError, type HelixErrorCode } from './helix-error.js';
export {
  SessionAlreadyExistsError,
  SessionNotFoundError,
  StaleStateError,
  ConfigurationError,
  type ConfigurationErrorCode,
  InvalidArgumentError,
  LLMCallError,
  StreamError,
  StoreError,
} from './errors.js';
export {
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
} from './dbos-errors.js';
export { RemoteAgentTransportError, RemoteSubAgentClientToolUnsupportedError } from './remote-errors.js';
