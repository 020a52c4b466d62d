/**
 * SIGKILL of a parent agent server while its remote sub-agent runs on another agent server (both real processes
 * with their own databases). The restarted parent (same DBOS executor id) recovers its run, which asks the remote
 * server for the status: a remote run that completed meanwhile gives its output without running again, one that
 * failed becomes a tool error, one still running is re-attached from the recorded sequence; no chunk reaches the
 * parent's stream twice.
 */
import { describe, expect, it } from 'vitest';
import type { SubSessionRef } from '../../../src/types/session.js';
import { waitFor } from '../../support/free-port.js';
import { useDrill } from '../support/drill.js';
import { callAs, expectProxiedOnce, startRemoteServer, type RemoteServer } from '../../integration/server/support/remote-kit.js';
import { CLOSING_TEXT, DELEGATED_PREFIX } from '../../integration/server/support/server-agents.js';
import { spawnServerProcess, type ServerProcess } from '../../integration/server/support/server-spawn.js';

const PARENT_VMID = 'remote-parent';

let remote: RemoteServer;
let parent: ServerProcess | undefined;

const env = useDrill('crash_remote_parent', {
  prepare: async () => {
    remote = await startRemoteServer('crash_remote_target');
  },
  release: async () => {
    await parent?.kill();
    await remote?.close();
  },
  setupTimeoutMs: 120_000,
});

const startParent = async (): Promise<ServerProcess> => (parent = await spawnServerProcess({ databaseUrl: env.database.url, remoteUrl: remote.url }, PARENT_VMID));
/** SIGKILL the parent server (it restarts with `startParent`, same DBOS executor id). */
const killParent = async (): Promise<void> => {
  await parent!.kill();
  parent = undefined;
};
const remoteStatus = (sessionId: string): Promise<any> => callAs(remote.url, `/status?sessionId=${sessionId}`);

/** Start the coordinator on the parent server and wait until its remote run is running with chunks proxied. */
async function startAndReachRemote(sessionId: string, input: string): Promise<SubSessionRef> {
  const server = parent ?? (await startParent());
  expect((await callAs(server.url, '/start', { agentType: 'coordinator', sessionId, input })).http).toBe(201);
  let ref: SubSessionRef | undefined;
  await waitFor(async () => ((ref = (await env.stateStore.getSubSessionRefs(sessionId))[0])?.remote?.lastSequence ?? 0) > 0, 30_000, 'proxied remote chunks');
  expect((await remoteStatus(ref!.subSessionId)).run).toMatchObject({ status: 'running' });
  return ref!;
}

async function parentCompleted(sessionId: string): Promise<any> {
  let last: any;
  await waitFor(async () => (last = await callAs(parent!.url, `/status?sessionId=${sessionId}`)).status === 'completed', 90_000, 'the recovered parent to complete', 200);
  return last;
}

describe('SIGKILL of the parent while its remote sub-agent runs', () => {
  it('a remote run that completed while the parent was down: its output is used without running it again', async () => {
    const ref = await startAndReachRemote('crash-done', 'delegate: slow2500: work');
    await killParent();
    await waitFor(async () => (await remoteStatus(ref.subSessionId)).status === 'completed', 30_000, 'the remote run to complete on its own');
    await startParent();
    const done = await parentCompleted('crash-done');
    expect(done.output).toBe(`${DELEGATED_PREFIX}${CLOSING_TEXT}`);
    expect(await remoteStatus(ref.subSessionId)).toMatchObject({ status: 'completed', run: { turn: 1, status: 'completed' } });
    expect((await env.stateStore.getSubSessionRefs('crash-done'))[0]).toMatchObject({ status: 'completed', output: CLOSING_TEXT });
    await expectProxiedOnce(env.streamManager, 'crash-done', remote.url, ref.subSessionId);
  }, 150_000);

  it('a remote run that failed while the parent was down becomes a tool error', async () => {
    const ref = await startAndReachRemote('crash-failed', 'delegate: loop: forever');
    await killParent();
    await waitFor(async () => (await remoteStatus(ref.subSessionId)).status === 'failed', 30_000, 'the remote run to fail on its own');
    await startParent();
    const done = await parentCompleted('crash-failed');
    expect(done.output).toMatch(new RegExp(`^${DELEGATED_PREFIX}The remote sub-agent failed: `));
    expect(await remoteStatus(ref.subSessionId)).toMatchObject({ status: 'failed', run: { turn: 1 } });
    expect((await env.stateStore.getSubSessionRefs('crash-failed'))[0]).toMatchObject({ status: 'failed' });
    await expectProxiedOnce(env.streamManager, 'crash-failed', remote.url, ref.subSessionId);
  }, 150_000);

  it('a remote run still running: the recovered parent re-attaches from the recorded sequence, no chunk twice', async () => {
    const ref = await startAndReachRemote('crash-running', 'delegate: slow12000: work');
    await killParent();
    await startParent();
    // The parent is back while the remote run still runs: this is the re-attach path, not the completed one.
    expect(await remoteStatus(ref.subSessionId)).toMatchObject({ status: 'active', run: { status: 'running' } });
    const done = await parentCompleted('crash-running');
    expect(done.output).toBe(`${DELEGATED_PREFIX}${CLOSING_TEXT}`);
    expect(await remoteStatus(ref.subSessionId)).toMatchObject({ status: 'completed', run: { turn: 1 } });
    await expectProxiedOnce(env.streamManager, 'crash-running', remote.url, ref.subSessionId);
  }, 150_000);
});
