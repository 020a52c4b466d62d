/**
 * Outcome of one server tool call (JSON; checkpointed by DBOS as the tool step's output).
 *
 * @example
 * const outcome: ToolOutcome = { toolCallId: 'c1', toolName: 'search', index: 0, resultMessageId: 'run-1:1:1', input: {}, success: true, result: 42, durationMs: 3 };
 */
export interface ToolOutcome {
  toolCallId: string;
  toolName: string;
  index: number;
  resultMessageId: string;
  input: Record<string, unknown>;
  success: boolean;
  result?: unknown;
  /** Payload-free error text for the model. */
  error?: string;
  durationMs: number;
  /** The step's commit was recorded with this tool call (a step whose only work was this call; see `soleToolCommit`). */
  committed?: true;
}
