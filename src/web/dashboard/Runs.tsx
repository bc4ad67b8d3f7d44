import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type RunSummary } from './api.ts';

const STATUSES = ['all', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;

export function Runs({ token }: { token: string }) {
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('all');
  const [search, setSearch] = useState('');
  const runs = useQuery({
    queryKey: ['runs', status],
    queryFn: () => api<{ runs: RunSummary[] }>(token, 'GET', `/v1/runs${status === 'all' ? '' : `?status=${status}`}`),
    refetchInterval: 3000,
  });
  const needle = search.trim().toLowerCase();
  const shown = (runs.data?.runs ?? []).filter((r) => !needle || r.goal.toLowerCase().includes(needle) || r.runId.includes(needle));
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <div className="filters">
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value as (typeof STATUSES)[number])}>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Search <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="goal or run id" />
        </label>
      </div>
      {runs.error ? <p role="alert">{(runs.error as Error).message}</p> : null}
      {shown.length === 0 && runs.isSuccess ? <p>No runs yet. Start one in the <a href="#/playground">playground</a>.</p> : null}
      <table>
        <thead>
          <tr>
            <th scope="col">Goal</th>
            <th scope="col">Status</th>
            <th scope="col">Profile</th>
            <th scope="col">Started</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((run) => (
            <tr key={run.runId}>
              <td>
                <a href={`#/runs/${encodeURIComponent(run.runId)}`}>{run.goal}</a>
              </td>
              <td>
                <span className={`status ${run.status}`}>{run.status}</span>
              </td>
              <td>{run.profile}</td>
              <td>
                <time dateTime={new Date(run.createdAt).toISOString()}>{new Date(run.createdAt).toLocaleString()}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
