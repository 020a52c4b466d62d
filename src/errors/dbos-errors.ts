import { HelixError, hasCode } from './helix-error.js';

/**
 * `execute()` was called without `options.sessionId`. Every run belongs to a caller-chosen session.
 *
 * @example
 * await executor.execute(agent, 'hi', { sessionId: 'chat-42' }); // not: execute(agent, 'hi')
 */
export class SessionIdRequiredError extends HelixError {
  constructor() {
    super('SESSION_ID_REQUIRED', 'options.sessionId is required: pass the id of the session (conversation) to run in.');
    this.name = 'SessionIdRequiredError';
  }
  static override isInstance(error: unknown): error is SessionIdRequiredError {
    return hasCode(error, 'SESSION_ID_REQUIRED');
  }
}

/**
 * `execute()` used a mode that conflicts with the one written when the session was created.
 *
 * @example
 * if (DBOSModeMismatchError.isInstance(error)) console.log(error.expected, error.actual);
 */
export class DBOSModeMismatchError extends HelixError {
  constructor(readonly sessionId: string, readonly expected: string, readonly actual: string) {
    super('DBOS_MODE_MISMATCH', `Session was created in "${expected}" mode and cannot run in "${actual}" mode; use the same mode or a new sessionId.`, {
      data: { sessionId, expected, actual },
    });
    this.name = 'DBOSModeMismatchError';
  }
  static override isInstance(error: unknown): error is DBOSModeMismatchError {
    return hasCode(error, 'DBOS_MODE_MISMATCH');
  }
}

/**
 * A DBOS workflow the session store expects cannot be found in the DBOS system database (it was reset or
 * garbage-collected). The message says how to recover for the session's mode: a standard run has been repaired to
 * `failed`, so `retry()` runs the session again; a persistent session is restarted from its stored history by its
 * next `execute()` (the lost turn is recorded `failed`). The workflow id is in `data`, never in the message.
 *
 * @example
 * if (DBOSWorkflowNotFoundError.isInstance(error)) await executor.retry(agent, sessionId);
 */
export class DBOSWorkflowNotFoundError extends HelixError {
  constructor(
    readonly workflowId: string,
    readonly advice: string = 'call executor.retry() to run the session again.',
  ) {
    // The workflow id embeds the session id (up to 1 KB): it stays in `data`, out of the message.
    super('DBOS_WORKFLOW_NOT_FOUND', `The DBOS workflow of this run is missing from the system database; ${advice}`, {
      data: { workflowId },
    });
    this.name = 'DBOSWorkflowNotFoundError';
  }
  static override isInstance(error: unknown): error is DBOSWorkflowNotFoundError {
    return hasCode(error, 'DBOS_WORKFLOW_NOT_FOUND');
  }
}

/**
 * A message could not be routed to a persistent session: its workflow ended, and restarting it lost the race
 * to concurrent writers again after an internal retry. Rare; retry `execute()` once.
 *
 * @example
 * if (DBOSPersistentSessionTerminatedError.isInstance(error)) await executor.execute(agent, input, options);
 */
export class DBOSPersistentSessionTerminatedError extends HelixError {
  constructor(readonly sessionId: string) {
    super('DBOS_PERSISTENT_SESSION_TERMINATED', 'The persistent session workflow ended while routing a message; retry execute() once.', {
      data: { sessionId },
    });
    this.name = 'DBOSPersistentSessionTerminatedError';
  }
  static override isInstance(error: unknown): error is DBOSPersistentSessionTerminatedError {
    return hasCode(error, 'DBOS_PERSISTENT_SESSION_TERMINATED');
  }
}

/**
 * The session is running (or in a state that only resume()/retry() may leave) and cannot start another run.
 *
 * @example
 * if (AgentAlreadyRunningError.isInstance(error)) return executor.getHandle(agent, sessionId);
 */
export class AgentAlreadyRunningError extends HelixError {
  constructor(readonly sessionId: string, readonly status: string) {
    super('AGENT_ALREADY_RUNNING', `The session is "${status}"; wait for its run, or use resume()/retry(), before starting another.`, {
      data: { sessionId, status },
    });
    this.name = 'AgentAlreadyRunningError';
  }
  static override isInstance(error: unknown): error is AgentAlreadyRunningError {
    return hasCode(error, 'AGENT_ALREADY_RUNNING');
  }
}

/**
 * The agent declares a `workspace`; the DBOS runtime has no workspace providers.
 *
 * @example
 * executor.describeCapabilities().workspaceProviderKinds // []
 */
export class WorkspaceUnsupportedError extends HelixError {
  constructor(readonly agentType: string) {
    super('WORKSPACE_UNSUPPORTED', 'This agent declares a workspace, which the DBOS runtime does not support; run it without `workspace`.', {
      data: { agentType },
    });
    this.name = 'WorkspaceUnsupportedError';
  }
  static override isInstance(error: unknown): error is WorkspaceUnsupportedError {
    return hasCode(error, 'WORKSPACE_UNSUPPORTED');
  }
}

/**
 * `execute()` on a session that is `failed`, `interrupted` or `paused`: continuing such a session is not a
 * new turn. Use `resume()` (interrupted/paused) or `retry()` (failed).
 *
 * @example
 * if (SessionNotContinuableError.isInstance(error)) await executor.retry(agent, sessionId);
 */
export class SessionNotContinuableError extends HelixError {
  constructor(readonly sessionId: string, readonly status: string, hint?: string) {
    super('SESSION_NOT_CONTINUABLE', `The session is "${status}"; ${hint ?? 'use resume() for an interrupted session or retry() for a failed one.'}`, {
      data: { sessionId, status },
    });
    this.name = 'SessionNotContinuableError';
  }
  static override isInstance(error: unknown): error is SessionNotContinuableError {
    return hasCode(error, 'SESSION_NOT_CONTINUABLE');
  }
}

/**
 * A `submitToolResult` payload is malformed, or does not match the pending call (wrong kind, wrong
 * approvalId). Nothing was changed. The message names the field, never its value.
 *
 * @example
 * if (InvalidSubmissionError.isInstance(error)) console.log(error.message);
 */
export class InvalidSubmissionError extends HelixError {
  constructor(message: string, data?: Record<string, unknown>) {
    super('INVALID_SUBMISSION', message, data === undefined ? undefined : { data });
    this.name = 'InvalidSubmissionError';
  }
  static override isInstance(error: unknown): error is InvalidSubmissionError {
    return hasCode(error, 'INVALID_SUBMISSION');
  }
}

/**
 * `resume()` on a session that has nothing to resume (completed, failed, or running), or `retry()` on a
 * session that has not failed.
 *
 * @example
 * if (NotResumableError.isInstance(error)) console.log(error.status);
 */
export class NotResumableError extends HelixError {
  constructor(readonly sessionId: string, readonly status: string, hint: string) {
    super('NOT_RESUMABLE', `The session is "${status}": ${hint}`, { data: { sessionId, status } });
    this.name = 'NotResumableError';
  }
  static override isInstance(error: unknown): error is NotResumableError {
    return hasCode(error, 'NOT_RESUMABLE');
  }
}

/**
 * The session was created by another agent type: every operation on a session uses the agent that created it.
 *
 * @example
 * if (SessionAgentMismatchError.isInstance(error)) console.log(error.sessionAgentType); // the session's agent
 */
export class SessionAgentMismatchError extends HelixError {
  constructor(readonly sessionId: string, readonly sessionAgentType: string, readonly requestedAgentType: string) {
    super(
      'SESSION_AGENT_MISMATCH',
      `This session belongs to agent "${sessionAgentType}", not "${requestedAgentType}"; call it with agent "${sessionAgentType}" or use a new sessionId.`,
      { data: { sessionId, sessionAgentType, requestedAgentType } },
    );
    this.name = 'SessionAgentMismatchError';
  }
  static override isInstance(error: unknown): error is SessionAgentMismatchError {
    return hasCode(error, 'SESSION_AGENT_MISMATCH');
  }
}

/**
 * An executor operation that starts or awaits an agent run was called from inside a DBOS step. A step must
 * not start workflows or await them; call it from the workflow body (replay-safe there) or outside DBOS.
 *
 * @example
 * if (DBOSStepContextError.isInstance(error)) console.log(error.operation); // 'execute'
 */
export class DBOSStepContextError extends HelixError {
  constructor(readonly operation: string) {
    super(
      'DBOS_STEP_CONTEXT',
      `${operation}() cannot run inside a DBOS step (a step may not start or await workflows); call it from your @DBOS.workflow body, where it is replay-safe, or outside DBOS.`,
      { data: { operation } },
    );
    this.name = 'DBOSStepContextError';
  }
  static override isInstance(error: unknown): error is DBOSStepContextError {
    return hasCode(error, 'DBOS_STEP_CONTEXT');
  }
}

/**
 * An agent run's DBOS workflow was forked (`DBOS.forkWorkflow`, `dbos workflow fork`) or started under an id other
 * than its own. A fork re-runs the run with the same input — the same session, run and stream — so it would write
 * the original session; the forked workflow refuses at its first line instead, before any step, and writes nothing.
 * To re-run a session from a checkpoint, start a branch: `execute(agent, input, { sessionId: newId, branch: {
 * fromSessionId, checkpointId } })`.
 *
 * @example
 * const forked = await DBOS.forkWorkflow(runWorkflowId, 3);
 * await forked.getResult().catch((error) => DBOSForkRefusedError.isInstance(error)); // true; the session is untouched
 */
export class DBOSForkRefusedError extends HelixError {
  constructor(readonly workflowId: string) {
    super(
      'DBOS_FORK_REFUSED',
      "A fork of an agent run's workflow would write the original session, so it was refused and wrote nothing; " +
        'to re-run a session from a checkpoint, execute() a new session with options.branch.',
      { data: { workflowId } },
    );
    this.name = 'DBOSForkRefusedError';
  }
  static override isInstance(error: unknown): error is DBOSForkRefusedError {
    return hasCode(error, 'DBOS_FORK_REFUSED');
  }
}

/**
 * A run whose workflow was recorded in a step-journal format this process cannot replay (a run started by an older
 * or newer release of this package). Replaying it would call the model and run tools again, so the workflow is
 * refused before any step: DBOS records it ERROR, and the next call on the session ends the run `failed`. Finish
 * such runs with the release that started them.
 *
 * @example
 * await handle.result().catch((error) => JournalFormatUnsupportedError.isInstance(error));
 */
export class JournalFormatUnsupportedError extends HelixError {
  constructor(
    readonly workflowId: string,
    readonly format: number | null,
  ) {
    super('JOURNAL_FORMAT_UNSUPPORTED', `This run's step journal (format ${format ?? 'before 1'}) cannot be replayed by this release; it was refused and re-ran nothing.`, {
      data: { workflowId, format },
    });
    this.name = 'JournalFormatUnsupportedError';
  }
  static override isInstance(error: unknown): error is JournalFormatUnsupportedError {
    return hasCode(error, 'JOURNAL_FORMAT_UNSUPPORTED');
  }
}
