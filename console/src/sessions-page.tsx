import { useEffect, useState } from 'react';
import type { ConsoleAgentsResponse, ConsoleSessionListResponse } from '../../src/server/console/console-api.js';
import { getJson, when } from './api.js';

const STATUSES = ['active', 'completed', 'failed', 'interrupted', 'paused'] as const;
/** The "updated" filter's windows (ms before now). */
const UPDATED_WITHIN: ReadonlyArray<[label: string, ms: number]> = [
  ['last hour', 3_600_000],
  ['last day', 86_400_000],
  ['last week', 604_800_000],
];

/** The principal's top-level sessions: filters (agent, status, waiting for a human), counts and cursor paging. */
export function SessionsPage() {
  const [agents, setAgents] = useState<string[]>([]);
  const [agent, setAgent] = useState('');
  const [status, setStatus] = useState('');
  const [awaitingHuman, setAwaitingHuman] = useState(false);
  const [updatedWithin, setUpdatedWithin] = useState('');
  const [cursors, setCursors] = useState<string[]>([]); // the cursors of the pages before this one
  const [page, setPage] = useState<ConsoleSessionListResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const cursor = cursors.at(-1);

  useEffect(() => {
    getJson<ConsoleAgentsResponse>('agents').then((answer) => setAgents(answer.agents.map((item) => item.name)), () => undefined);
  }, []);
  useEffect(() => {
    const query = new URLSearchParams({ limit: '20' });
    if (agent !== '') query.set('agent', agent);
    if (status !== '') query.set('status', status);
    if (awaitingHuman) query.set('awaitingHuman', 'true');
    if (updatedWithin !== '') query.set('updatedSince', String(Date.now() - Number(updatedWithin)));
    if (cursor !== undefined) query.set('cursor', cursor);
    let live = true;
    const load = (): void =>
      void getJson<ConsoleSessionListResponse>(`sessions?${query}`).then(
        (answer) => live && (setPage(answer), setError(null)),
        (failure: Error) => live && setError(failure.message),
      );
    load();
    const timer = setInterval(load, 3_000);
    return () => ((live = false), clearInterval(timer));
  }, [agent, status, awaitingHuman, updatedWithin, cursor]);
  const filter = (apply: () => void): void => (apply(), setCursors([]));

  return (
    <section>
      <h1>Sessions</h1>
      {page !== null && (
        <p className="counts" data-testid="counts">
          {STATUSES.map((name) => (
            <span key={name} className={`badge ${name}`}>
              {name} {page.counts.byStatus[name]}
            </span>
          ))}
          <span className="badge waiting">waiting for a human {page.counts.awaitingHuman}</span>
        </p>
      )}
      <div className="filters">
        <label>
          Agent{' '}
          <select value={agent} onChange={(event) => filter(() => setAgent(event.target.value))}>
            <option value="">all</option>
            {agents.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Status{' '}
          <select value={status} onChange={(event) => filter(() => setStatus(event.target.value))}>
            <option value="">all</option>
            {STATUSES.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Updated{' '}
          <select value={updatedWithin} onChange={(event) => filter(() => setUpdatedWithin(event.target.value))}>
            <option value="">any time</option>
            {UPDATED_WITHIN.map(([label, ms]) => (
              <option key={label} value={String(ms)}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={awaitingHuman} onChange={(event) => filter(() => setAwaitingHuman(event.target.checked))} /> waiting for a human
        </label>
      </div>
      {error !== null && <p className="error">{error}</p>}
      {page !== null && (
        <>
          <table>
            <thead>
              <tr>
                <th>Session</th>
                <th>Agent</th>
                <th>Status</th>
                <th>Steps</th>
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {page.sessions.map((row) => (
                <tr key={row.sessionId} data-session={row.sessionId}>
                  <td>
                    <a href={`#/sessions/${encodeURIComponent(row.sessionId)}`}>{row.sessionId}</a>
                  </td>
                  <td>{row.agentType}</td>
                  <td>
                    <span className={`badge ${row.status}`}>{row.status}</span>
                    {row.awaitingHuman && <span className="badge waiting">waiting for a human</span>}
                  </td>
                  <td>{row.stepCount}</td>
                  <td>{when(row.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="paging">
            <span data-testid="total">{page.total} sessions</span>
            <button disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous
            </button>
            <button disabled={page.nextCursor === null} onClick={() => page.nextCursor !== null && setCursors([...cursors, page.nextCursor])}>
              Next
            </button>
          </p>
        </>
      )}
    </section>
  );
}
