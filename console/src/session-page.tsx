import { useCallback, useEffect, useRef, useState } from 'react';
import type { ConsoleAction, ConsolePendingCallView, ConsoleSessionDetailResponse, ConsoleTreeNode, ConsoleValue } from '../../src/server/console/console-api.js';
import type { UsageSummary } from '../../src/types/usage.js';
import { act, followSession, getJson, when } from './api.js';
import { applyChunk, EMPTY_LIVE, type LiveView } from './live.js';

/** Chunk types after which the page reloads the session (a call waits, a tool ended, the run ended). */
const RELOAD_ON = new Set(['tool_end', 'tool_approval_request', 'run_suspended', 'output', 'error', 'run_interrupted', 'subagent_end']);

/** One session: actions, pending human calls, the live step, runs, steps, checkpoints, the sub-agent tree and usage. */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const [detail, setDetail] = useState<ConsoleSessionDetailResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState<LiveView>(EMPTY_LIVE);
  const [busy, setBusy] = useState(false);
  const path = `sessions/${encodeURIComponent(sessionId)}`;
  const reload = useCallback(
    () =>
      getJson<ConsoleSessionDetailResponse>(path).then(
        (answer) => (setDetail(answer), setError(null)),
        (failure: Error) => setError(failure.message),
      ),
    [path],
  );
  useEffect(() => {
    void reload();
    const timer = setInterval(() => void reload(), 3_000);
    return () => clearInterval(timer);
  }, [reload]);

  const running = detail?.session.currentRun?.status === 'running' ? detail.session.currentRun.runId : null;
  const reloadRef = useRef(reload);
  reloadRef.current = reload;
  // Follow each new running run from its start until the server ends its stream (after the run's last chunk) or the
  // page closes: the streamed view stays whole after the run ends, whatever the next reload says.
  const followed = useRef<{ runId: string; controller: AbortController } | null>(null);
  useEffect(() => {
    if (running === null || followed.current?.runId === running) return;
    followed.current?.controller.abort();
    const controller = new AbortController();
    followed.current = { runId: running, controller };
    setLive(EMPTY_LIVE);
    void followSession(
      sessionId,
      (chunk) => {
        setLive((view) => applyChunk(view, chunk, sessionId));
        if (RELOAD_ON.has(chunk.type)) void reloadRef.current();
      },
      controller.signal,
    ).then(() => void reloadRef.current());
  }, [running, sessionId]);
  useEffect(
    () => () => {
      followed.current?.controller.abort();
      followed.current = null;
    },
    [],
  );

  const run = async (action: ConsoleAction, body: object = {}): Promise<void> => {
    setBusy(true);
    try {
      const answer = await act(sessionId, action, body);
      if (action === 'branch') window.location.hash = `#/sessions/${encodeURIComponent(answer.session.sessionId)}`;
      await reload();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (detail === null) return <p className={error === null ? '' : 'error'}>{error ?? 'Loading…'}</p>;
  const { session } = detail;
  return (
    <section className="session">
      <h1>
        {session.sessionId} <span className={`badge ${session.status}`} data-testid="session-status">{session.status}</span>
        {session.awaitingHuman && <span className="badge waiting">waiting for a human</span>}
      </h1>
      <p className="meta">
        {session.agentType} · {session.mode} · {session.stepCount} steps · created {when(session.createdAt)} · updated {when(session.updatedAt)}
        {session.parentSessionId !== undefined && (
          <>
            {' '}
            · parent <a href={`#/sessions/${encodeURIComponent(session.parentSessionId)}`}>{session.parentSessionId}</a>
          </>
        )}
      </p>
      {session.failure !== undefined && <p className="error">Failed: {session.failure.reason ?? ''} {session.failure.error ?? ''}</p>}
      {session.interrupt !== undefined && <p className="note">Interrupted {session.interrupt.reason ?? ''}</p>}
      {error !== null && <p className="error">{error}</p>}
      <div className="actions">
        <button disabled={busy || running === null} onClick={() => void run('interrupt', { reason: 'console' })}>
          Interrupt
        </button>
        <button disabled={busy || !session.canResume} onClick={() => void run('resume')}>
          Resume
        </button>
        <button disabled={busy || !session.canRetry} onClick={() => void run('retry')}>
          Retry
        </button>
        <button className="danger" disabled={busy || session.status !== 'active'} onClick={() => void run('abort', { reason: 'console' })}>
          Abort
        </button>
      </div>

      {detail.pendingCalls.length > 0 && (
        <div className="card pending">
          <h2>Waiting for you</h2>
          {detail.pendingCalls.map((call) => (
            <PendingCall key={call.toolCallId} call={call} busy={busy} act={run} />
          ))}
        </div>
      )}

      {(running !== null || live.steps.length > 0) && (
        <div className="card live" data-testid="live">
          <h2>{running !== null ? 'Live' : 'Last run as streamed'}</h2>
          {live.steps.map((step) => (
            <div key={step.step}>
              <p className="step-label">step {step.step}</p>
              <p className="text" data-testid="live-text">{step.text}</p>
              {step.tools.map((tool) => (
                <p key={tool.toolCallId} className="tool">
                  {tool.toolName} {tool.done ? '✓' : '…'}
                </p>
              ))}
            </div>
          ))}
        </div>
      )}

      <h2>Runs ({detail.runsTotal})</h2>
      <ol className="timeline" data-testid="runs">
        {detail.runs.map((item) => (
          <li key={item.runId}>
            <span className={`badge ${item.status}`}>{item.status}</span> turn {item.turn} · {item.completionReason ?? ''} · {item.stepCount} steps ·{' '}
            {item.durationMs === null ? 'running' : `${(item.durationMs / 1000).toFixed(1)} s`} · {when(item.startedAt)}
            {item.usage !== null && <> · {item.usage.totalTokens} tokens</>}
            {item.error !== undefined && <span className="error"> {item.error}</span>}
          </li>
        ))}
      </ol>

      <h2>Steps</h2>
      <div data-testid="steps">
        {detail.history.steps.map((step) => (
          <div className="card step" key={`${step.runId ?? ''}:${step.firstSequence}`}>
            <p className="step-label">
              {step.step === null ? 'input' : `step ${step.step}`} {when(step.createdAt)}
            </p>
            {step.userText !== undefined && <Value label="user" value={step.userText} open />}
            {step.thinking !== undefined && <Value label="thinking" value={step.thinking} />}
            {step.text !== undefined && <Value label="text" value={step.text} open />}
            {step.toolCalls.map((call) => (
              <details key={call.toolCallId} className="tool">
                <summary>
                  {call.toolName} <span className={`badge ${call.status}`}>{call.status}</span>
                </summary>
                {call.arguments !== undefined && <Value label="arguments" value={call.arguments} open />}
                {call.result !== undefined && <Value label="result" value={call.result} open />}
              </details>
            ))}
          </div>
        ))}
      </div>

      <h2>Checkpoints ({detail.checkpointsTotal})</h2>
      <ul>
        {detail.checkpoints.map((checkpoint) => (
          <li key={checkpoint.id}>
            {checkpoint.id} · step {checkpoint.stepCount} · {checkpoint.messageCount} messages · {checkpoint.changedKeys.join(', ') || 'no state change'}{' '}
            <button
              disabled={busy}
              onClick={() => {
                const message = window.prompt('Branch from this checkpoint with the message:');
                if (message !== null && message !== '') void run('branch', { checkpointId: checkpoint.id, message });
              }}
            >
              Branch
            </button>
          </li>
        ))}
      </ul>

      <h2>Sub-agents ({detail.tree.nodeCount})</h2>
      <Tree nodes={detail.tree.children} />

      {detail.usage !== null && (
        <>
          <h2>Usage</h2>
          <table className="usage" data-testid="usage">
            <tbody>
              <UsageRow label="session" usage={detail.usage.session} />
              {detail.usage.tree !== null && <UsageRow label="tree" usage={detail.usage.tree} />}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function PendingCall({ call, busy, act: run }: { call: ConsolePendingCallView; busy: boolean; act: (action: ConsoleAction, body: object) => Promise<void> }) {
  const [reason, setReason] = useState('');
  const [result, setResult] = useState('{}');
  return (
    <div className="call" data-call={call.toolCallId}>
      <p>
        <strong>{call.toolName}</strong> ({call.kind === 'approval' ? 'needs approval' : 'client tool'}) from {call.agentType}
        {call.ownerSessionId !== undefined && <> · {call.ownerSessionId}</>}
      </p>
      <Value label="input" value={call.input} open />
      {call.kind === 'approval' ? (
        <p>
          <button disabled={busy} onClick={() => void run('approve', { toolCallId: call.toolCallId })}>
            Approve
          </button>{' '}
          <input aria-label="Reason" placeholder="reason (optional)" value={reason} onChange={(event) => setReason(event.target.value)} />{' '}
          <button className="danger" disabled={busy} onClick={() => void run('deny', reason === '' ? { toolCallId: call.toolCallId } : { toolCallId: call.toolCallId, reason })}>
            Deny
          </button>
        </p>
      ) : (
        <p>
          <textarea aria-label="Result (JSON)" value={result} onChange={(event) => setResult(event.target.value)} rows={3} />{' '}
          <button
            disabled={busy}
            onClick={() => {
              let parsed: unknown;
              try {
                parsed = JSON.parse(result);
              } catch {
                parsed = result;
              }
              void run('submit', { toolCallId: call.toolCallId, result: parsed });
            }}
          >
            Submit
          </button>
        </p>
      )}
    </div>
  );
}

function Value({ label, value, open = false }: { label: string; value: ConsoleValue; open?: boolean }) {
  return (
    <details className="value" open={open}>
      <summary>
        {label}
        {value.truncated && ` (first ${value.text.length} of ${value.length} characters)`}
      </summary>
      <pre>{value.text}</pre>
    </details>
  );
}

function Tree({ nodes }: { nodes: ConsoleTreeNode[] }) {
  if (nodes.length === 0) return <p className="note">none</p>;
  return (
    <ul className="tree">
      {nodes.map((node) => (
        <li key={node.sessionId} data-node={node.sessionId}>
          <a href={`#/sessions/${encodeURIComponent(node.sessionId)}`}>{node.name ?? node.agentType}</a> <span className={`badge ${node.status ?? 'unknown'}`}>{node.status ?? node.refStatus}</span>{' '}
          {node.mode}
          {node.remote && ' · remote'}
          {node.children.length > 0 && <Tree nodes={node.children} />}
        </li>
      ))}
    </ul>
  );
}

function UsageRow({ label, usage }: { label: string; usage: UsageSummary }) {
  return (
    <tr>
      <th>{label}</th>
      <td>{usage.llmCalls} model calls</td>
      <td>
        {usage.inputTokens} in / {usage.outputTokens} out tokens
      </td>
      <td>
        {usage.toolCalls} tool calls ({usage.toolFailures} failed)
      </td>
    </tr>
  );
}
