/**
 * DBOS's end of a run's workflow, on the journal this suite runs with (CI runs both): a root run's workflow ends
 * SUCCESS with the run's result as its output, read back by DBOS's own handle; on the fused journal that end is
 * written by the transaction that records the run's FinishRunStep (one transaction fewer after the last token), on
 * the public journal by DBOS when the workflow function returns. A sub-agent's workflow, which notifies its parent
 * after its finish, is ended by DBOS on either journal.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSubAgentTool, defineAgent } from '../../../src/agent/index.js';
import { activeJournal } from '../../../src/journal/journal.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { useTestRuntime } from '../../support/runtime.js';

const helper = defineAgent({ name: 'end_helper', systemPrompt: 'Help.', outputSchema: z.object({ answer: z.string() }) });
const lead = defineAgent({ name: 'end_lead', systemPrompt: 'Lead.', tools: [createSubAgentTool(helper, z.object({ ask: z.string() }))] });

/** Its finish writes on its own (a hook must see the outcome committed), then records alone: the end rides with that row. */
let completions = 0;
const hooked = defineAgent({ name: 'end_hooked', systemPrompt: 'Lead.', hooks: { onAgentComplete: () => void (completions += 1) } });

const llm = new MockLLMAdapter((input) => {
  if (input.agentType === 'end_helper') return { type: 'structured_output', output: { answer: 'helped' } };
  const delegate = JSON.stringify(input.messages).includes('delegate') && !input.messages.some((message) => message.role === 'tool');
  if (!delegate) return { type: 'text', text: 'done' };
  return { type: 'tool_calls', toolCalls: [{ id: 'h1', name: 'subagent__end_helper', arguments: { ask: 'help' } }] };
});

const env = useTestRuntime('workflow_end', llm);

/** The transaction ids that wrote the workflow's status row and its last step's row. */
async function writers(workflowId: string): Promise<{ status: string; end: string; lastStep: string; lastStepName: string }> {
  const { rows } = await env.client.query<{ status: string; end: string; last_step: string; name: string }>(
    `SELECT status.status, status.xmin::text AS end, step.xmin::text AS last_step, step.function_name AS name
     FROM dbos.workflow_status AS status
     JOIN LATERAL (SELECT xmin, function_name FROM dbos.operation_outputs WHERE workflow_uuid = status.workflow_uuid
                   ORDER BY function_id DESC LIMIT 1) AS step ON true
     WHERE status.workflow_uuid = $1`,
    [workflowId],
  );
  const row = rows[0]!;
  return { status: row.status, end: row.end, lastStep: row.last_step, lastStepName: row.name };
}

describe("a run's workflow end", () => {
  it('is SUCCESS with the run result as output; on the fused journal written with the FinishRunStep record', async () => {
    const handle = await env.runtime.executor.execute(lead, 'Say hi.', { sessionId: 'end-1' });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', output: 'done' });

    const status = await DBOS.getWorkflowStatus(handle.workflowId);
    expect(status?.status).toBe('SUCCESS');
    // DBOS's own handle reads the recorded output: the same result the caller got.
    expect(await DBOS.retrieveWorkflow(handle.workflowId).getResult()).toEqual(result);

    const written = await writers(handle.workflowId);
    expect(written.lastStepName).toBe('FinishRunStep');
    if (activeJournal() === 'fused') expect(written.end).toBe(written.lastStep);
    else expect(written.end).not.toBe(written.lastStep);
  });

  it('rides with a finish row recorded alone (its writes made on their own before it, for a hook)', async () => {
    const handle = await env.runtime.executor.execute(hooked, 'Say hi.', { sessionId: 'end-3' });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'done' });
    expect(completions).toBe(1);
    const written = await writers(handle.workflowId);
    expect([written.status, written.lastStepName]).toEqual(['SUCCESS', 'FinishRunStep']);
    if (activeJournal() === 'fused') expect(written.end).toBe(written.lastStep);
    else expect(written.end).not.toBe(written.lastStep);
    expect(await DBOS.retrieveWorkflow(handle.workflowId).getResult()).toMatchObject({ status: 'completed', output: 'done' });
  });

  it('of a sub-agent (it tells its parent after its finish) is written by DBOS when its workflow returns', async () => {
    const handle = await env.runtime.executor.execute(lead, 'Please delegate.', { sessionId: 'end-2' });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'done' });
    const { rows } = await env.client.query<{ workflow_uuid: string }>(
      `SELECT workflow_uuid FROM dbos.workflow_status WHERE name = 'helix.runAgent' AND workflow_uuid LIKE 'end_helper%'`,
    );
    expect(rows).toHaveLength(1);
    const child = await writers(rows[0]!.workflow_uuid);
    expect(child.status).toBe('SUCCESS');
    expect(child.end).not.toBe(child.lastStep);
  });
});
