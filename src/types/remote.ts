import type { StreamChunk } from './stream.js';

/**
 * What a remote agent server is asked to start: the agent type, the deterministic remote session id and the
 * input (POST /start of `AgentServer`).
 *
 * @example
 * const request: RemoteAgentStartRequest = { agentType: 'researcher', sessionId: 's1-remote-call_1', input: { message: '{"topic":"tides"}' } };
 */
export interface RemoteAgentStartRequest {
  agentType: string;
  sessionId: string;
  input: string | { message: string; state?: Record<string, unknown> };
}

/**
 * Per-call options of {@link RemoteAgentTransport.start}.
 *
 * @example
 * await transport.start(request, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
 */
export interface RemoteAgentStartOptions {
  /**
   * W3C `traceparent` of the calling tool span (the remote sub-agent step passes it): the remote run's spans join the
   * caller's trace. `HttpRemoteAgentTransport` sends it as the `traceparent` header; a transport may ignore it.
   */
  traceparent?: string;
}

/**
 * Where a started (or already existing) remote run writes: read `streamId` after `startSequence`.
 *
 * @example
 * const { streamId, startSequence } = await transport.start(request);
 */
export interface RemoteAgentStartResult {
  sessionId: string;
  runId: string;
  streamId: string;
  startSequence: number;
  /** False when the session already existed (a repeated start after a crash started nothing). */
  created: boolean;
}

/**
 * The remote session as GET /status reports it (the fields a parent needs).
 *
 * @example
 * if (status.status === 'completed') return status.output;
 */
export interface RemoteAgentStatus {
  sessionId: string;
  agentType: string;
  /** The session status: active, completed, failed, interrupted or paused. */
  status: string;
  /** The current run (its `status`: running, completed, failed, interrupted, aborted, suspended_…), if any. */
  run: { runId: string; status: string } | null;
  output?: unknown;
  error?: string;
  failureReason?: string;
  /** The remote run waits for a client-executed tool's result. */
  awaitingClientTool: boolean;
  /** The remote run waits for an approval decision. */
  awaitingApproval: boolean;
  stream: { streamId: string; status: string; lastSequence: number };
}

/**
 * Options of {@link RemoteAgentTransport.stream}.
 *
 * @example
 * const options: RemoteAgentStreamOptions = { fromSequence: 41, signal: AbortSignal.timeout(30_000) };
 */
export interface RemoteAgentStreamOptions {
  /** Yield chunks with a sequence greater than this. */
  fromSequence: number;
  /** Ends the stream (iteration completes) when aborted. */
  signal?: AbortSignal;
}

/**
 * How a parent talks to agents in another service. `HttpRemoteAgentTransport` implements it against an
 * `AgentServer`; any implementation must make `start` idempotent per `sessionId` (a repeated start answers the
 * existing run) and `stream` resumable from a sequence.
 *
 * @example
 * const transport: RemoteAgentTransport = new HttpRemoteAgentTransport({ url: 'https://agents.internal', headers: { authorization: `Bearer ${token}` } });
 */
export interface RemoteAgentTransport {
  /** Start (or answer the existing run of) `request.sessionId`; `options.traceparent` puts the run in the caller's trace. */
  start(request: RemoteAgentStartRequest, options?: RemoteAgentStartOptions): Promise<RemoteAgentStartResult>;
  /** The session's chunks after `fromSequence`, live, until the run ends, the stream ends or `signal` aborts. */
  stream(sessionId: string, options: RemoteAgentStreamOptions): AsyncIterable<StreamChunk>;
  getStatus(sessionId: string): Promise<RemoteAgentStatus>;
  interrupt(sessionId: string, reason?: string): Promise<void>;
  abort(sessionId: string, reason?: string): Promise<void>;
}
