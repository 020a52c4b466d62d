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
  DBOSForkRefusedError,
  JournalFormatUnsupportedError,
} from './dbos-errors.js';
export { ExecutorIdInUseError, InternalError, ToolContractError } from './runtime-errors.js';
export { RemoteAgentTransportError, RemoteSubAgentClientToolUnsupportedError } from './remote-errors.js';
export { safeErrorOf, safeErrorText, boundedMessage, MAX_SAFE_ERROR_MESSAGE, type ErrorOrigin, type SafeError } from './safe-error.js';
export { renderThrown, MAX_THROWN_ERROR_TEXT, MAX_THROWN_VALUE_TEXT } from './thrown-value.js';
export { redactSecrets, clipText } from './redact-secrets.js';
