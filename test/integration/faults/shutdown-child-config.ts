/**
 * The contract between the shutdown drill (parent) and its child process (shutdown-child.ts): the configuration the
 * parent passes in one environment variable and the sessions the child leaves waiting. Both processes import it.
 */

/** Environment variable holding the JSON-encoded {@link ShutdownChildConfig}. */
export const SHUTDOWN_CHILD_ENV = 'HELIX_SHUTDOWN_CHILD';

/**
 * The shutdown orders a child can use: `documented` (executor.close → DBOS.shutdown → stores) and `stores-last`
 * (the old README order: DBOS.shutdown → stores, no executor.close).
 */
export type ShutdownOrder = 'documented' | 'stores-last';

/** What the parent passes to a child. */
export interface ShutdownChildConfig {
  mode: 'start' | 'recover';
  databaseUrl: string;
  order: ShutdownOrder;
}

/** The sessions a start child leaves waiting: kind, session id, and the call a recover child answers. */
export const SHUTDOWN_SESSIONS = {
  clientTool: { sessionId: 'shutdown-client', toolCallId: 'call-pick' },
  approval: { sessionId: 'shutdown-approval', toolCallId: 'call-transfer' },
  idlePersistent: { sessionId: 'shutdown-idle' },
  approvalPersistent: { sessionId: 'shutdown-persistent-approval', toolCallId: 'call-persistent-transfer' },
  /** A run whose sub-agent waits for a client tool (the parent waits for the child; answered through the root). */
  subAgent: { sessionId: 'shutdown-sub-agent', toolCallId: 'call-child-pick' },
} as const;
