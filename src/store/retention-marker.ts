/**
 * Metadata key the executor's retention sets on a session whose stream chunks and DBOS records it pruned;
 * `listFinishedSessions` skips such sessions.
 *
 * @example
 * await stateStore.patchMetadata(sessionId, { [PRUNED_MARKER]: String(Date.now()) });
 */
export const PRUNED_MARKER = 'helix.prunedAt';
