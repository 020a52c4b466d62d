import { InvalidArgumentError } from '../errors/index.js';
import { parseTraceparent } from '../telemetry/ids.js';
import type { TurnInput } from '../orchestration/resume-turn.js';
import type { AgentWorkflowInput } from '../workflows/agent.workflow.js';

/**
 * The turn part of a run's start plus the trace a remote caller passed (`ExecuteOptions.traceparent`, parsed).
 *
 * @example
 * const turn: PlannedTurn = { userMessage, ...runTrace(options.traceparent) };
 */
export type PlannedTurn = TurnInput & Pick<AgentWorkflowInput, 'trace'>;

/**
 * The `trace` of a run started with `traceparent` (none without one).
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for a value that is not a W3C `traceparent` (its text is not echoed).
 * @example
 * runTrace('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'); // { trace: { traceId: '0af7…', parentSpanId: 'b7ad…' } }
 */
export function runTrace(traceparent: unknown): Pick<AgentWorkflowInput, 'trace'> {
  if (traceparent === undefined) return {};
  const trace = typeof traceparent === 'string' ? parseTraceparent(traceparent) : undefined;
  if (trace === undefined)
    throw new InvalidArgumentError('options.traceparent must be a W3C traceparent (00-<32 hex trace id>-<16 hex span id>-<2 hex flags>).', {
      field: 'traceparent',
    });
  return { trace };
}
