import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, type ToolContext } from '../../../src/agent/index.js';
import { InvalidArgumentError } from '../../../src/errors/index.js';
import type { SessionState } from '../../../src/types/session.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { conversation } from './run-control-kit.js';

type Notes = { notes: string[] };

const addNote = defineTool({
  name: 'add_note',
  description: 'Append a note',
  parameters: z.object({ note: z.string() }),
  execute: async ({ note }, context: ToolContext<Notes>) => {
    context.updateState((draft) => void draft.notes.push(note));
    return { saved: note };
  },
});

const agent = defineAgent({
  name: 'branch_agent',
  systemPrompt: (state: Notes) => `Notes: ${state.notes.join(',')}`,
  stateSchema: z.object({ notes: z.array(z.string()).default([]) }),
  tools: [addNote],
  maxSteps: 5,
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('run_control_branch', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** Steps 1 and 2 add notes a and b, step 3 answers: checkpoints `${runId}:1..3`. */
async function sourceSession(sessionId: string): Promise<{ runId: string; state: SessionState }> {
  llm.use((_input, callIndex) => {
    if (callIndex < 2) {
      const note = callIndex === 0 ? 'a' : 'b';
      return { type: 'tool_calls', toolCalls: [{ id: `${sessionId}-note-${note}`, name: 'add_note', arguments: { note } }] };
    }
    return { type: 'text', text: 'source answer' };
  });
  const handle = await runtime.executor.execute(agent, 'take notes', { sessionId });
  expect(await handle.result()).toMatchObject({ status: 'completed', output: 'source answer' });
  return { runId: handle.runId, state: (await runtime.stateStore.loadState(sessionId))! };
}

describe('branching a session at a checkpoint', () => {
  it("starts a new session from the checkpoint's history and state; the source is unchanged", async () => {
    const source = await sourceSession('branch-source');
    const sourceMessages = (await runtime.stateStore.getMessages('branch-source')).messages;
    const sourceRuns = (await runtime.stateStore.listRuns('branch-source')).runs;
    const sourceCheckpoints = await runtime.stateStore.listCheckpoints('branch-source');
    expect(sourceCheckpoints.map((checkpoint) => checkpoint.id)).toEqual([1, 2, 3].map((step) => `${source.runId}:${step}`));
    const checkpoint = sourceCheckpoints[0]!;
    expect(checkpoint).toMatchObject({ messageCount: 3, customState: { notes: ['a'] } });

    llm.use(() => ({ type: 'text', text: 'branch answer' }));
    const branch = await runtime.executor.execute(agent, 'what if', {
      sessionId: 'branch-new',
      branch: { fromSessionId: 'branch-source', checkpointId: checkpoint.id },
    });
    expect(branch.sessionId).toBe('branch-new');
    expect(await branch.result()).toMatchObject({ status: 'completed', output: 'branch answer', runId: branch.runId });

    // The branch's first LLM call: the source's history up to the checkpoint, then the new input; the checkpoint's state.
    expect(llm.adapter.callCount).toBe(1);
    expect(conversation(llm.adapter.calls[0]!.messages)).toEqual([
      'system:Notes: a',
      'user:take notes',
      'assistant:[branch-source-note-a]',
      'tool:branch-source-note-a',
      'user:what if',
    ]);
    const branchState = await runtime.stateStore.loadState<Notes>('branch-new');
    expect(branchState).toMatchObject({ status: 'completed', output: 'branch answer', customState: { notes: ['a'] }, agentType: 'branch_agent' });
    expect(branchState?.rootSessionId ?? 'branch-new').toBe('branch-new');
    const branchMessages = (await runtime.stateStore.getMessages('branch-new')).messages;
    expect(conversation(branchMessages)).toEqual([
      'user:take notes',
      'assistant:[branch-source-note-a]',
      'tool:branch-source-note-a',
      'user:what if',
      'assistant:branch answer',
    ]);
    const branchRuns = (await runtime.stateStore.listRuns('branch-new')).runs;
    expect(branchRuns.map((run) => [run.turn, run.runId, run.status])).toEqual([[1, branch.runId, 'completed']]);

    // The source session: same messages, state, runs, checkpoints and version.
    expect(await runtime.stateStore.loadState('branch-source')).toEqual(source.state);
    expect((await runtime.stateStore.getMessages('branch-source')).messages).toEqual(sourceMessages);
    expect((await runtime.stateStore.listRuns('branch-source')).runs).toEqual(sourceRuns);
    expect(await runtime.stateStore.listCheckpoints('branch-source')).toEqual(sourceCheckpoints);
  });

  it('a branch continues independently of its source', async () => {
    await sourceSession('branch-source-2');
    const checkpointId = (await runtime.stateStore.listCheckpoints('branch-source-2'))[1]!.id;
    llm.use(() => ({ type: 'text', text: 'branch turn' }));
    const branch = await runtime.executor.execute(agent, 'fork', { sessionId: 'branch-2', branch: { fromSessionId: 'branch-source-2', checkpointId } });
    expect(await branch.result()).toMatchObject({ status: 'completed' });

    llm.use((_input, callIndex) =>
      callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'branch-note-c', name: 'add_note', arguments: { note: 'c' } }] } : { type: 'text', text: 'second turn' },
    );
    const next = await branch.send('add c');
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'second turn' });
    expect((await runtime.stateStore.loadState<Notes>('branch-2'))?.customState.notes).toEqual(['a', 'b', 'c']);
    expect((await runtime.stateStore.loadState<Notes>('branch-source-2'))?.customState.notes).toEqual(['a', 'b']);
    expect((await runtime.stateStore.listRuns('branch-2')).runs.map((run) => run.turn)).toEqual([1, 2]);
  });

  it('branches from a checkpoint stored as a delta; every checkpoint of source and branch reads back exactly', async () => {
    const long = (tag: string) => `${tag}:`.padEnd(600, tag);
    llm.use((_input, callIndex) =>
      callIndex < 4
        ? { type: 'tool_calls', toolCalls: [{ id: `delta-note-${callIndex}`, name: 'add_note', arguments: { note: long(String(callIndex)) } }] }
        : { type: 'text', text: 'delta answer' },
    );
    const handle = await runtime.executor.execute(agent, 'take long notes', { sessionId: 'delta-source' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const client = new pg.Client({ connectionString: runtime.database.url });
    await client.connect();
    const stored = await client
      .query<{ snapshot: boolean }>(`SELECT custom_state IS NOT NULL AS snapshot FROM __agents_checkpoints WHERE session_id = 'delta-source' ORDER BY position`)
      .finally(() => client.end());
    // The first checkpoint is a snapshot; the one the branch starts from is a delta.
    expect(stored.rows.map((row) => row.snapshot).slice(0, 3)).toEqual([true, false, false]);
    const checkpoints = await runtime.stateStore.listCheckpoints('delta-source');
    expect(checkpoints.map((checkpoint) => (checkpoint.customState as Notes).notes)).toEqual([0, 1, 2, 3, 4].map((count) => ['0', '1', '2', '3'].slice(0, Math.min(count + 1, 4)).map(long)));

    llm.use((_input, callIndex) =>
      callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'delta-branch-note', name: 'add_note', arguments: { note: long('b') } }] } : { type: 'text', text: 'forked' },
    );
    const branch = await runtime.executor.execute(agent, 'fork', { sessionId: 'delta-branch', branch: { fromSessionId: 'delta-source', checkpointId: checkpoints[2]!.id } });
    expect(await branch.result()).toMatchObject({ status: 'completed', output: 'forked' });
    const branchCheckpoints = await runtime.stateStore.listCheckpoints('delta-branch');
    expect(branchCheckpoints.map((checkpoint) => (checkpoint.customState as Notes).notes)).toEqual([
      ['0', '1', '2'].map(long),
      ['0', '1', '2', 'b'].map(long),
      ['0', '1', '2', 'b'].map(long),
    ]);
    expect((await runtime.stateStore.getLatestCheckpoint('delta-branch'))?.customState).toEqual((await runtime.stateStore.loadState('delta-branch'))?.customState);
    expect(await runtime.stateStore.listCheckpoints('delta-source')).toEqual(checkpoints);
  });

  it('rejects a checkpoint id the source does not have, creating nothing', async () => {
    await sourceSession('branch-source-3');
    llm.use(() => ({ type: 'text', text: 'never' }));
    await expect(
      runtime.executor.execute(agent, 'fork', { sessionId: 'branch-3', branch: { fromSessionId: 'branch-source-3', checkpointId: 'run-nope:1' } }),
    ).rejects.toSatisfy((error: unknown) => InvalidArgumentError.isInstance(error));
    expect(await runtime.stateStore.loadState('branch-3')).toBeNull();
    expect(llm.adapter.callCount).toBe(0);
  });
});
