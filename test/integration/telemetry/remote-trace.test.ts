/**
 * Remote sub-agents through W3C `traceparent` over HTTP: the caller (coordinator) runs in this process, traced into
 * memory; the remote agent server is a child process on its own database whose spans go to a file. The remote run's
 * spans join the caller's trace under the calling tool span, also after the remote server is killed and recovers it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRemoteAgentTransport } from '../../../src/remote/http-remote-agent-transport.js';
import { formatTraceparent, runSpanId, sessionTraceId, toolSpanId } from '../../../src/telemetry/index.js';
import { waitFor } from '../../support/free-port.js';
import { callAs, chunksOf } from '../server/support/remote-kit.js';
import { coordinatorAgent } from '../server/support/remote-agents.js';
import { assistant, CLOSING_TEXT, DELEGATED_PREFIX } from '../server/support/server-agents.js';
import { startServerKit, type ServerKit } from '../server/support/server-kit.js';
import { startTracedRemote, type FileSpan, type TracedRemote } from './support/traced-remote.js';
import { memoryTracing, parentOf, spansOfTrace } from './telemetry-kit.js';

const tracing = memoryTracing();
let remote: TracedRemote;
let kit: ServerKit;

beforeAll(async () => {
  remote = await startTracedRemote('remote_trace_target');
  kit = await startServerKit('remote_trace_parent', { agents: [assistant, coordinatorAgent(remote.url)] }, { telemetry: { tracer: tracing.tracer } });
}, 120_000);
afterAll(async () => {
  await kit?.close();
  await remote?.close();
});

async function waitForStatus(baseUrl: string, sessionId: string, status: string, timeoutMs = 40_000): Promise<any> {
  let last: any;
  await waitFor(async () => (last = await callAs(baseUrl, `/status?sessionId=${sessionId}`)).status === status, timeoutMs, `${sessionId} to be ${status}`, 100);
  return last;
}

/** The coordinator's remote call: its call id and the remote session. */
async function remoteCall(sessionId: string): Promise<{ callId: string; remoteSessionId: string }> {
  let found: { callId: string; remoteSessionId: string } | undefined;
  await waitFor(
    async () => {
      const ref = (await kit.runtime.stateStore.getSubSessionRefs(sessionId))[0];
      if (ref?.parentToolCallId !== undefined) found = { callId: ref.parentToolCallId, remoteSessionId: ref.subSessionId };
      return found !== undefined;
    },
    20_000,
    'the remote ref',
  );
  return found!;
}

/** The remote session's spans, once its run's `invoke_agent` span (emitted when the run ends) is there. */
async function remoteSpansOf(remoteSessionId: string, runs = 1): Promise<FileSpan[]> {
  const ofSession = () => remote.spans().filter((span) => span.attributes['helix.session.id'] === remoteSessionId);
  await waitFor(async () => ofSession().filter((span) => span.name === 'invoke_agent assistant').length >= runs, 20_000, `the remote run span of ${remoteSessionId}`);
  return ofSession();
}

/** The caller's `execute_tool <remote tool>` span: once, under the caller's run, with the deterministic call span id. */
async function expectCallerToolSpan(sessionId: string, callId: string): Promise<void> {
  const callerRun = await kit.runtime.stateStore.getCurrentRun(sessionId);
  const tools = spansOfTrace(tracing.exporter, sessionTraceId(sessionId)).filter((span) => span.name === 'execute_tool remote__assistant');
  expect(tools).toHaveLength(1);
  expect(tools[0]!.spanContext().spanId).toBe(toolSpanId(sessionId, callId));
  expect(parentOf(tools[0]!)).toBe(runSpanId(callerRun!.runId));
  expect(tools[0]!.attributes).toMatchObject({ 'gen_ai.tool.call.id': callId, 'helix.tool.executor': 'remote_agent', 'helix.tool.outcome': 'success' });
}

describe('remote sub-agents over HTTP: W3C traceparent', () => {
  it("the remote run's spans join the caller's trace under the calling tool span; the caller's tool span once", async () => {
    await callAs(kit.baseUrl, '/start', { agentType: 'coordinator', sessionId: 'rt-e2e', input: 'delegate: slow300: work' });
    expect((await waitForStatus(kit.baseUrl, 'rt-e2e', 'completed')).output).toBe(`${DELEGATED_PREFIX}${CLOSING_TEXT}`);
    const { callId, remoteSessionId } = await remoteCall('rt-e2e');

    const spans = await remoteSpansOf(remoteSessionId);
    const runs = spans.filter((span) => span.name === 'invoke_agent assistant');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ traceId: sessionTraceId('rt-e2e'), parentSpanId: toolSpanId('rt-e2e', callId), attributes: { 'helix.run.status': 'completed' } });
    // Every span of the remote run is in the caller's trace: its model calls and its tool under its run span.
    for (const span of spans) expect(span.traceId).toBe(sessionTraceId('rt-e2e'));
    expect(spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat')).toHaveLength(2);
    const slow = spans.filter((span) => span.name === 'execute_tool slow_tool');
    expect(slow).toHaveLength(1);
    expect(slow[0]!.parentSpanId).toBe(runs[0]!.spanId);
    await expectCallerToolSpan('rt-e2e', callId);
  }, 90_000);

  it("a remote server killed mid-run and brought back: the recovered run stays in the caller's trace", async () => {
    await callAs(kit.baseUrl, '/start', { agentType: 'coordinator', sessionId: 'rt-crash', input: 'delegate: slow3000: work' });
    const { callId, remoteSessionId } = await remoteCall('rt-crash');
    const toolStarted = async () => (await chunksOf(kit.runtime.streamManager, 'rt-crash')).some((chunk) => chunk.agentId === remoteSessionId && chunk.type === 'tool_start');
    await waitFor(toolStarted, 20_000, "the remote slow tool's start proxied");
    await remote.kill();
    await remote.restart(); // DBOS in the new process recovers the remote run from its recorded input
    await waitForStatus(kit.baseUrl, 'rt-crash', 'completed', 60_000);

    const spans = await remoteSpansOf(remoteSessionId);
    const runs = spans.filter((span) => span.name === 'invoke_agent assistant');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ traceId: sessionTraceId('rt-crash'), parentSpanId: toolSpanId('rt-crash', callId) });
    for (const span of spans) expect(span.traceId).toBe(sessionTraceId('rt-crash'));
    // The slow tool was cut by the kill: the recovering process ran it again, in the caller's trace.
    const recovered = spans.filter((span) => span.name === 'execute_tool slow_tool' && span.attributes['helix.recovered'] === true);
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.parentSpanId).toBe(runs[0]!.spanId);
    await expectCallerToolSpan('rt-crash', callId);
  }, 120_000);

  it('a malformed traceparent header is ignored: the remote run gets its own session trace', async () => {
    for (const [sessionId, traceparent] of [
      ['rt-malformed', '00-not-a-trace'],
      ['rt-zero', formatTraceparent('0'.repeat(32), 'b7ad6b7169203331')],
      ['rt-upper', formatTraceparent('0AF7651916CD43DD8448EB211C80319C', 'b7ad6b7169203331')],
    ] as const) {
      const response = await fetch(`${remote.url}/start`, {
        method: 'POST',
        headers: { authorization: 'Bearer token-alice', 'content-type': 'application/json', traceparent },
        body: JSON.stringify({ agentType: 'assistant', sessionId, input: 'hello' }),
      });
      expect(response.status).toBe(201);
      await waitForStatus(remote.url, sessionId, 'completed');
      const runs = (await remoteSpansOf(sessionId)).filter((span) => span.name === 'invoke_agent assistant');
      expect(runs).toHaveLength(1);
      expect(runs[0]!.traceId).toBe(sessionTraceId(sessionId));
      expect(runs[0]!.parentSpanId).toBeUndefined();
    }
  }, 60_000);

  it("execute() refuses a malformed traceparent before writing anything; a valid one is the session's trace from then on", async () => {
    const { executor, stateStore } = kit.runtime;
    for (const traceparent of ['00-abc', formatTraceparent('1'.repeat(32), '0'.repeat(16)), 42 as unknown as string]) {
      await expect(executor.execute(assistant, 'hello', { sessionId: 'rt-refused', traceparent })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', data: { field: 'traceparent' } });
    }
    expect(await stateStore.loadState('rt-refused')).toBeNull();

    const given = { traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331' };
    const first = await executor.execute(assistant, 'hello', { sessionId: 'rt-direct', traceparent: formatTraceparent(given.traceId, given.parentSpanId) });
    expect((await first.result()).status).toBe('completed');
    const second = await executor.execute(assistant, 'again', { sessionId: 'rt-direct' }); // no traceparent: the session's is kept
    expect((await second.result()).status).toBe('completed');
    expect((await stateStore.getRun('rt-direct', second.runId))?.metadata).toMatchObject({ workflowInput: { trace: given } });

    const spans = spansOfTrace(tracing.exporter, given.traceId);
    const runs = spans.filter((span) => span.name === 'invoke_agent assistant');
    expect(runs.map((span) => span.spanContext().spanId).sort()).toEqual([runSpanId(first.runId), runSpanId(second.runId)].sort());
    for (const run of runs) expect(parentOf(run)).toBe(given.parentSpanId);
    const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.map((span) => parentOf(span)).sort()).toEqual([runSpanId(first.runId), runSpanId(second.runId)].sort());
    expect(spansOfTrace(tracing.exporter, sessionTraceId('rt-direct'))).toHaveLength(0);
  }, 60_000);

  it('HttpRemoteAgentTransport sends a valid traceparent option as the one traceparent header of /start, and leaves a malformed one out', async () => {
    const sent: Headers[] = [];
    const fetchStub = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      sent.push(new Headers(init?.headers));
      return Response.json({ sessionId: 's', runId: 'r', streamId: 's', startSequence: 0, created: true }, { status: 201 });
    };
    const transport = new HttpRemoteAgentTransport({ url: 'http://127.0.0.1:1', headers: { Traceparent: 'static-value' }, fetch: fetchStub });
    const traceparent = formatTraceparent(sessionTraceId('caller'), toolSpanId('caller', 'c1'));
    await transport.start({ agentType: 'assistant', sessionId: 's', input: 'x' }, { traceparent });
    await transport.start({ agentType: 'assistant', sessionId: 's', input: 'x' }, { traceparent: 'bad' });
    await transport.start({ agentType: 'assistant', sessionId: 's', input: 'x' });
    expect(sent.map((headers) => headers.get('traceparent'))).toEqual([traceparent, 'static-value', 'static-value']);
  });
});
