import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { client, unwrap } from './api.ts';
import { ProfileBudget } from './Budget.tsx';

const STATUSES = ['all', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;

/** `datetime-local` value (local time) → ms since the epoch, or undefined when empty. */
function toMs(value: string): number | undefined {
  if (!value) return undefined;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/** A labelled select over `options`, with an optional first choice meaning "no filter" (the empty value). */
function Choice({
  label,
  value,
  options,
  empty,
  onChange,
}: {
  label: string;
  value: string;
  options: readonly string[];
  empty?: string;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {empty !== undefined ? <option value="">{empty}</option> : null}
        {options.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    </label>
  );
}

export function Runs({ token, profile: defaultProfile }: { token: string; profile: string }) {
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('all');
  const [profile, setProfile] = useState('');
  const [tool, setTool] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [search, setSearch] = useState('');
  const since = toMs(from);
  const until = toMs(to);
  const filter = {
    ...(status !== 'all' ? { status } : {}),
    ...(profile ? { profile } : {}),
    ...(tool ? { tool } : {}),
    ...(since !== undefined ? { since: String(since) } : {}),
    ...(until !== undefined ? { until: String(until) } : {}),
    limit: '1000',
  };
  const query = new URLSearchParams(filter).toString();
  const runs = useQuery({ queryKey: ['runs', query], queryFn: () => unwrap(client(token).v1.runs.$get({ query: filter })), refetchInterval: 3000 });
  // Choices come from every run the token may see, so a filter never offers a dead end.
  const all = useQuery({
    queryKey: ['runs', 'limit=1000'],
    queryFn: () => unwrap(client(token).v1.runs.$get({ query: { limit: '1000' } })),
    refetchInterval: 10_000,
  });
  const choices = useMemo(() => {
    const profiles = new Set<string>([defaultProfile]);
    const tools = new Set<string>();
    for (const run of all.data?.runs ?? []) {
      profiles.add(run.profile);
      for (const t of run.tools ?? []) tools.add(t);
    }
    return { profiles: [...profiles].sort(), tools: [...tools].sort() };
  }, [all.data, defaultProfile]);
  const needle = search.trim().toLowerCase();
  const shown = (runs.data?.runs ?? []).filter((r) => !needle || r.goal.toLowerCase().includes(needle) || r.runId.toLowerCase().includes(needle));
  const filtered = query !== 'limit=1000' || needle !== '';
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <ProfileBudget token={token} profile={profile || defaultProfile} />
      <div className="filters" role="search" aria-label="Filter runs">
        <Choice label="Status" value={status} options={STATUSES} onChange={(v) => setStatus(v as (typeof STATUSES)[number])} />
        <Choice label="Profile" value={profile} options={choices.profiles} empty="all" onChange={setProfile} />
        <Choice label="Tool" value={tool} options={choices.tools} empty="any" onChange={setTool} />
        <label>
          Started from <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          Started before <input type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
        <label>
          Search <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="goal or run id" />
        </label>
      </div>
      {runs.error ? <p role="alert">{(runs.error as Error).message}</p> : null}
      {shown.length === 0 && runs.isSuccess ? (
        filtered ? (
          <p>No run matches these filters.</p>
        ) : (
          <p>
            No runs yet. Start one in the <a href="#/playground">playground</a>.
          </p>
        )
      ) : null}
      <p className="hint" aria-live="polite">
        {runs.isSuccess ? `${shown.length} run(s)` : ''}
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Goal</th>
            <th scope="col">Status</th>
            <th scope="col">Profile</th>
            <th scope="col">Tools</th>
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
              <td>{(run.tools ?? []).join(', ')}</td>
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
