import { HelixError, hasCode } from './helix-error.js';

/**
 * An invariant of the runtime broke (`INTERNAL_ERROR`): a state the code rules out was reached, e.g. a record it
 * wrote is gone or a helper ran outside the context it is made for. Not caused by the caller's input; the message
 * says what broke and what to check, and `data` carries bounded context (never payloads). Retrying rarely helps:
 * report it with the debug log.
 *
 * @example
 * if (InternalError.isInstance(error)) logger.error('helix invariant broke', { message: error.message });
 */
export class InternalError extends HelixError {
  constructor(message: string, options?: { cause?: unknown; data?: Record<string, unknown> }) {
    super('INTERNAL_ERROR', message, options);
    this.name = 'InternalError';
  }
  static override isInstance(error: unknown): error is InternalError {
    return hasCode(error, 'INTERNAL_ERROR');
  }
}

/**
 * A tool broke the contract the runtime gives tools (`TOOL_ERROR`): it returned a value JSON cannot carry, ended or
 * outlived its transaction, or a `requireApproval` predicate tried to change state. The call fails like any tool
 * error (the model reads the message); fix the tool as the message says.
 *
 * @example
 * if (ToolContractError.isInstance(error)) console.log(error.message); // 'The tool returned a value that is not JSON-serializable; …'
 */
export class ToolContractError extends HelixError {
  constructor(message: string, options?: { cause?: unknown; data?: Record<string, unknown> }) {
    super('TOOL_ERROR', message, options);
    this.name = 'ToolContractError';
  }
  static override isInstance(error: unknown): error is ToolContractError {
    return hasCode(error, 'TOOL_ERROR');
  }
}

/**
 * Thrown by `FleetMember.join` when a live process kept the executor id's lease past `leaseWaitMs`.
 *
 * @example
 * try { await FleetMember.join(options); } catch (error) { if (ExecutorIdInUseError.isInstance(error)) process.exit(1); }
 */
export class ExecutorIdInUseError extends HelixError {
  constructor(executorId: string) {
    super('EXECUTOR_ID_IN_USE', `Executor id "${executorId}" is held by a live process; give this process another id or stop that one.`, { data: { executorId } });
    this.name = 'ExecutorIdInUseError';
  }
  static override isInstance(error: unknown): error is ExecutorIdInUseError {
    return hasCode(error, 'EXECUTOR_ID_IN_USE');
  }
}
