import { DBOS } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import { scriptedTurn } from './bench-system.js';
import type { StepClock } from './step-clock.js';

/**
 * What the naive loop's steps reach outside DBOS: the pool its message rows go to, the clock of the
 * running session and the tool-execution count. Set by `openNaiveDbosSystem` before each session.
 *
 * @example
 * naiveLoopContext.pool = pool;
 */
export const naiveLoopContext: { pool?: pg.Pool; clock?: StepClock; toolCalls: number } = { toolCalls: 0 };

/** A message row of the naive loop: the model's tool call and the tool's result of one step, or the answer. */
type NaiveMessages = Array<{ role: 'assistant' | 'tool'; content: string; toolCallId?: string }>;

/**
 * The naive durable agent loop: per agent step, three bare `@DBOS.step`s (model stub, tool, append the
 * step's messages as one row). Import before `DBOS.launch()` so the decorators are registered.
 *
 * @example
 * await DBOS.startWorkflow(NaiveLoopWorkflows.run, { workflowID: 'naive-1' })('naive-1', 200);
 */
export class NaiveLoopWorkflows {
  /**
   * The scripted model: a tool call for calls 1..steps, then a text answer.
   *
   * @example
   * await NaiveLoopWorkflows.callModel(1, 200); // { toolCallId: 'noop-1' }
   */
  @DBOS.step({ name: 'NaiveModelStep' })
  static async callModel(call: number, steps: number): Promise<{ toolCallId?: string; text?: string }> {
    await naiveLoopContext.clock?.onModelCall(call);
    return scriptedTurn(call, steps) === 'tool' ? { toolCallId: `noop-${call}` } : { text: 'done' };
  }

  /**
   * The no-op tool.
   *
   * @example
   * await NaiveLoopWorkflows.runTool('noop-1'); // { ok: true }
   */
  @DBOS.step({ name: 'NaiveToolStep' })
  static async runTool(_toolCallId: string): Promise<{ ok: boolean }> {
    naiveLoopContext.toolCalls += 1;
    return { ok: true };
  }

  /**
   * Append one step's messages as a row (idempotent per session and step).
   *
   * @example
   * await NaiveLoopWorkflows.appendMessages('naive-1', 1, [{ role: 'assistant', content: '' }]);
   */
  @DBOS.step({ name: 'NaiveAppendStep' })
  static async appendMessages(sessionId: string, step: number, messages: NaiveMessages): Promise<void> {
    if (naiveLoopContext.pool === undefined) throw new Error('The naive loop has no pool; open it with openNaiveDbosSystem.');
    await naiveLoopContext.pool.query('INSERT INTO naive_messages (session_id, step, messages) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
      sessionId,
      step,
      JSON.stringify(messages),
    ]);
  }

  /**
   * Run the loop until the model answers with text; resolves with the number of agent steps.
   *
   * @example
   * await DBOS.startWorkflow(NaiveLoopWorkflows.run)('naive-1', 200);
   */
  @DBOS.workflow({ name: 'bench.naiveAgentLoop' })
  static async run(sessionId: string, steps: number): Promise<number> {
    for (let call = 1; ; call += 1) {
      const turn = await NaiveLoopWorkflows.callModel(call, steps);
      if (turn.toolCallId === undefined) {
        await NaiveLoopWorkflows.appendMessages(sessionId, call, [{ role: 'assistant', content: turn.text ?? '' }]);
        return call;
      }
      const result = await NaiveLoopWorkflows.runTool(turn.toolCallId);
      await NaiveLoopWorkflows.appendMessages(sessionId, call, [
        { role: 'assistant', content: JSON.stringify({ toolCalls: [{ id: turn.toolCallId, name: 'noop', arguments: {} }] }) },
        { role: 'tool', content: JSON.stringify(result), toolCallId: turn.toolCallId },
      ]);
    }
  }
}
