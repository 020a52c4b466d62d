import type { RunScope } from '../steps/step-scope.js';
import type { AgentResult } from '../types/result.js';

/** Workflow-body helper: deliver finished non-blocking companions into the parent's turn (exactly once each). */
export async function deliverCompanionCompletions(_scope: RunScope): Promise<void> {
  // Implemented with the companion tools.
}

/** Workflow-body helper: a companion's turn ended — report it to the parent. */
export async function reportCompanionTurn(_scope: RunScope, _companion: { parentSessionId: string; name: string }, _result: AgentResult): Promise<void> {
  // Implemented with the companion tools.
}
