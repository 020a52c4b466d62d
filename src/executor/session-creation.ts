import type { AgentInput, AnyAgentConfig } from '../agent/index.js';
import { SessionAlreadyExistsError } from '../errors/index.js';
import { initializeAgentState } from '../orchestration/index.js';
import { reclaimStream } from '../stream/index.js';
import type { RunLauncher } from './run-launcher.js';
import { runTrace } from './run-trace.js';
import { withStartWrites, type StartWriter } from './start-writes.js';
import type { AgentWorkflowInput } from '../workflows/agent.workflow.js';
import { InternalError } from '../errors/index.js';
import type { StreamInfo } from '../types/stream.js';
import type { AgentExecutionHandle, DBOSAgentExecutorConfig, ExecuteOptions } from './types.js';

/**
 * execute() on a new session id: create the session (or branch it from another session's checkpoint) and start
 * its first run. A concurrent creator wins: the loser gets the winner's run when it is the same turn. The winner
 * reclaims a stream an earlier session with the id left behind (`reclaimStream`) before the run starts. A
 * `traceparent` option is recorded as the run's `trace` (its spans join the caller's trace). `stream`: the read of the
 * stream under the session's id, taken beside the read that found no session (else it is read here).
 *
 * @example
 * return createAndStart(config, launcher, agent, input, runId, options, 'Hello');
 */
export async function createAndStart(
  { stateStore, streamManager }: Pick<DBOSAgentExecutorConfig, 'stateStore' | 'streamManager'>,
  launcher: RunLauncher,
  agent: AnyAgentConfig,
  input: AgentInput,
  runId: string,
  options: ExecuteOptions,
  sameTurn: string | undefined,
  stream?: Promise<StreamInfo | null>,
): Promise<AgentExecutionHandle<any>> {
  const { sessionId, branch } = options;
  const initial = initializeAgentState(agent, input, { runId });
  const trace = runTrace(options.traceparent);
  try {
    if (branch === undefined) {
      // The session and its first run: one transaction when the stores share a database (its reads taken before).
      // No session, so no run of it: nothing to read for the previous run. `stream`: its stream read beside the session.
      const planned = await launcher.planRun(agent, sessionId, runId, { userMessage: initial.message, ...trace }, { previous: null, stream });
      const record = async (writer: StartWriter): Promise<AgentWorkflowInput> => {
        await writer.createSession(sessionId, {
          agentType: agent.name,
          customState: initial.customState,
          status: 'active',
          mode: options.mode ?? 'standard',
          streamId: sessionId,
          ...(options.userId === undefined ? {} : { userId: options.userId }),
          ...(options.tags === undefined ? {} : { tags: options.tags }),
          ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
        });
        return launcher.recordRun(writer, planned, { sessionCreated: true });
      };
      // No stream under the id when the start was planned: nothing to reclaim (its start opened it, or its first writer
      // will), and the workflow's start may join the writes. Else the stream is reclaimed between the two.
      if (planned.stream === null) return (await launcher.recordAndLaunch(agent, planned, record, options)) ?? refusedCreation();
      const recorded = await withStartWrites({ stateStore, streamManager }, record);
      await reclaimStream(streamManager, sessionId);
      return launcher.launchRun(agent, recorded, options);
    }
    await stateStore.cloneSession(branch.fromSessionId, sessionId, {
      agentType: agent.name,
      ...(branch.checkpointId === undefined ? {} : { checkpointId: branch.checkpointId }),
    });
  } catch (error) {
    if (!SessionAlreadyExistsError.isInstance(error)) throw error;
    return launcher.handleOfRunningSession(agent, sessionId, undefined, sameTurn ?? '');
  }
  await reclaimStream(streamManager, sessionId);
  const cloned = await stateStore.loadState(sessionId);
  const branched = initializeAgentState(agent, input, { runId, existingState: cloned?.customState ?? {} });
  await stateStore.saveState(sessionId, { status: 'active', streamId: sessionId, customState: branched.customState, output: undefined, error: undefined });
  return launcher.startRun(agent, sessionId, runId, { userMessage: branched.message, ...trace }, options);
}

/** A new session's start writes refuse by error (a session that exists), never by resolving `undefined`. */
function refusedCreation(): never {
  throw new InternalError('A new session\'s start was refused without an error.');
}
