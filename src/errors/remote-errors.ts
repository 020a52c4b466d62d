import { HelixError, hasCode } from './helix-error.js';

/**
 * A remote agent server could not be reached or answered something unusable (`REMOTE_TRANSPORT_ERROR`).
 * `status` is the HTTP status when there was an answer; `retryable` is true for network failures, 408, 429
 * and 5xx. The message names the operation and status only (never a body, a header or a token).
 *
 * @example
 * try { await transport.getStatus('s1'); }
 * catch (error) { if (RemoteAgentTransportError.isInstance(error) && error.retryable) await retryLater(); }
 */
export class RemoteAgentTransportError extends HelixError {
  readonly status?: number;
  readonly retryable: boolean;

  constructor(operation: string, options: { status?: number; remoteCode?: string; retryable: boolean; cause?: unknown }) {
    const answer =
      options.status === undefined
        ? 'the server could not be reached'
        : `the server answered ${options.status}${options.remoteCode === undefined ? '' : ` ${options.remoteCode}`}`;
    super('REMOTE_TRANSPORT_ERROR', `Remote agent ${operation} failed: ${answer}.`, {
      ...(options.cause === undefined ? {} : { cause: options.cause }),
      data: {
        operation,
        ...(options.status === undefined ? {} : { status: options.status }),
        ...(options.remoteCode === undefined ? {} : { remoteCode: options.remoteCode }),
      },
    });
    this.name = 'RemoteAgentTransportError';
    this.retryable = options.retryable;
    if (options.status !== undefined) this.status = options.status;
  }

  static override isInstance(error: unknown): error is RemoteAgentTransportError {
    return hasCode(error, 'REMOTE_TRANSPORT_ERROR');
  }
}

/**
 * A remote sub-agent called a client-executed tool (`execute: 'client'`). Its result has no route across the
 * HTTP boundary, so the remote dispatch fails fast instead of waiting: the parent's model gets a tool error and
 * the remote run is aborted. `failureReason` is `'client-tool-unsupported'`.
 *
 * @example
 * if (RemoteSubAgentClientToolUnsupportedError.isInstance(error)) console.log(error.failureReason); // 'client-tool-unsupported'
 */
export class RemoteSubAgentClientToolUnsupportedError extends HelixError {
  readonly failureReason = 'client-tool-unsupported' as const;

  constructor(
    readonly remoteSessionId: string,
    readonly agentType: string,
  ) {
    super(
      'REMOTE_SUBAGENT_CLIENT_TOOL_UNSUPPORTED',
      `The remote sub-agent "${agentType}" called a client-executed tool; client tools are not supported inside remote sub-agents.`,
      { data: { remoteSessionId, agentType, failureReason: 'client-tool-unsupported' } },
    );
    this.name = 'RemoteSubAgentClientToolUnsupportedError';
  }

  static override isInstance(error: unknown): error is RemoteSubAgentClientToolUnsupportedError {
    return hasCode(error, 'REMOTE_SUBAGENT_CLIENT_TOOL_UNSUPPORTED');
  }
}
