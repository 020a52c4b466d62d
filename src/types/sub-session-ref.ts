/**
 * A link from a parent session to a child (sub-agent) session.
 *
 * @example
 * const children: SubSessionRef[] = await stateStore.getSubSessionRefs('s1');
 */
export interface SubSessionRef {
  subSessionId: string;
  agentType: string;
  parentToolCallId: string;
  /** 'ephemeral' for createSubAgentTool children, 'persistent' for companions. */
  mode: 'ephemeral' | 'persistent';
  /** Companion name (persistent children only). */
  name?: string;
  /** `paused_awaiting_client`: the child waits (parked) for a human. */
  status: 'running' | 'completed' | 'failed' | 'interrupted' | 'terminated' | 'paused_awaiting_client';
  /** True once a non-blocking companion's completion was delivered to the parent. */
  completionDelivered?: boolean;
  output?: unknown;
  error?: string;
  /** When the child was started (epoch ms). */
  startedAt: number;
  /** When the child reached a terminal status (set by a patch to completed/failed/interrupted/terminated). */
  completedAt?: number;
  /**
   * Remote sub-agents only (`createRemoteSubAgentTool`): the remote session's stream and the last of its chunk
   * sequences proxied into the parent's stream, to re-attach after a crash. The transport is not stored: it
   * comes from the tool definition.
   */
  remote?: { streamId: string; lastSequence: number };
}
