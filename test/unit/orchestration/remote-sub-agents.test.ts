import { describe, expect, it } from 'vitest';
import {
  decideRemoteStatus,
  decideRemoteWait,
  remoteChunkKey,
  remoteSessionId,
  remoteStreamDrained,
  REMOTE_CLIENT_TOOL_MESSAGE,
  REMOTE_INTERRUPTED_MESSAGE,
  REMOTE_TERMINATED_MESSAGE,
  type RemoteDecision,
} from '../../../src/orchestration/remote-sub-agents.js';
import type { RemoteAgentStatus } from '../../../src/types/remote.js';

describe('remote ids', () => {
  it('derives the remote session id from the parent session and the tool call, deterministically', () => {
    expect(remoteSessionId('s1', 'call_7')).toBe('s1-remote-call_7');
    expect(remoteSessionId('s1', 'call_7')).toBe(remoteSessionId('s1', 'call_7'));
    expect(remoteSessionId('s1', 'call_8')).not.toBe(remoteSessionId('s1', 'call_7'));
  });

  it('keys a proxied chunk by remote session and sequence', () => {
    expect(remoteChunkKey('s1-remote-c', 42)).toBe('remote:s1-remote-c:42');
    expect(remoteChunkKey('s1-remote-c', 42)).not.toBe(remoteChunkKey('s2-remote-c', 42));
  });
});

type StatusView = Pick<RemoteAgentStatus, 'status' | 'output' | 'error' | 'failureReason' | 'awaitingClientTool'>;

describe('decideRemoteStatus', () => {
  const table: Array<[string, StatusView, RemoteDecision]> = [
    ['completed → output', { status: 'completed', output: { a: 1 }, awaitingClientTool: false }, { kind: 'done', outcome: { kind: 'result', output: { a: 1 } }, refStatus: 'completed', abortRemote: false }],
    ['completed without output → null', { status: 'completed', awaitingClientTool: false }, { kind: 'done', outcome: { kind: 'result', output: null }, refStatus: 'completed', abortRemote: false }],
    [
      'failed → tool error with its reason',
      { status: 'failed', error: 'Max steps exceeded (3)', failureReason: 'max_steps', awaitingClientTool: false },
      { kind: 'done', outcome: { kind: 'error', error: 'The remote sub-agent failed: Max steps exceeded (3)', failureReason: 'max_steps' }, refStatus: 'failed', abortRemote: false },
    ],
    [
      'aborted → terminated',
      { status: 'failed', error: 'Aborted', failureReason: 'aborted', awaitingClientTool: false },
      { kind: 'done', outcome: { kind: 'error', error: REMOTE_TERMINATED_MESSAGE, failureReason: 'aborted' }, refStatus: 'terminated', abortRemote: false },
    ],
    [
      'waiting for a client tool → client-tool-unsupported, abort the remote run',
      { status: 'active', awaitingClientTool: true },
      { kind: 'done', outcome: { kind: 'error', error: REMOTE_CLIENT_TOOL_MESSAGE, failureReason: 'client-tool-unsupported' }, refStatus: 'failed', abortRemote: true },
    ],
    [
      'interrupted → tool error',
      { status: 'interrupted', awaitingClientTool: false },
      { kind: 'done', outcome: { kind: 'error', error: REMOTE_INTERRUPTED_MESSAGE, failureReason: 'interrupted' }, refStatus: 'interrupted', abortRemote: false },
    ],
    ['running → wait', { status: 'active', awaitingClientTool: false }, { kind: 'wait' }],
    ['paused (approval) → wait', { status: 'paused', awaitingClientTool: false }, { kind: 'wait' }],
  ];
  it.each(table)('%s', (_label, status, expected) => {
    expect(decideRemoteStatus(status)).toEqual(expected);
  });

  it('bounds the failure text it copies from the remote server', () => {
    const decision = decideRemoteStatus({ status: 'failed', error: 'x'.repeat(5_000), awaitingClientTool: false });
    expect(decision.kind === 'done' && decision.outcome.kind === 'error' && decision.outcome.error.length).toBeLessThan(600);
  });
});

describe('decideRemoteWait', () => {
  const base = { startedAt: 1_000, timeoutMs: 10_000, unreachableTimeoutMs: 2_000 };
  const table: Array<[string, { now: number; unreachableSince?: number }, ReturnType<typeof decideRemoteWait>]> = [
    ['within both bounds', { now: 5_000 }, 'continue'],
    ['past the total timeout', { now: 11_000 }, 'timeout'],
    ['unreachable, not for long', { now: 5_000, unreachableSince: 4_000 }, 'continue'],
    ['unreachable too long', { now: 6_000, unreachableSince: 4_000 }, 'unreachable'],
    ['unreachable too long and past the timeout', { now: 20_000, unreachableSince: 4_000 }, 'unreachable'],
  ];
  it.each(table)('%s', (_label, input, expected) => {
    expect(decideRemoteWait({ ...base, ...input })).toBe(expected);
  });
});

describe('remoteStreamDrained', () => {
  const base = { streamEnded: false, proxiedSequence: 40, remoteLastSequence: 42, draining: false };
  const table: Array<[string, Partial<typeof base>, boolean]> = [
    ['a window cut before the last chunks: read on', {}, false],
    ['the remote server ended the stream', { streamEnded: true }, true],
    ["the proxied sequence reached the stream's last sequence", { proxiedSequence: 42 }, true],
    ['one window was already spent reading on (a tail without chunks)', { draining: true }, true],
  ];
  it.each(table)('%s', (_label, input, expected) => {
    expect(remoteStreamDrained({ ...base, ...input })).toBe(expected);
  });
});
