import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { client, unwrap } from './api.ts';
import { ProfileBudget } from './Budget.tsx';
import { duration } from './format.ts';
import { Trends } from './Trends.tsx';

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

/** The list's state, kept in the address (`#/runs?status=failed&sort=cost`): a filtered view is a link. */
const KEYS = ['status', 'profile', 'tool', 'feedback', 'from', 'to', 'q', 'sort', 'order'] as const;
const FEEDBACK = ['positive', 'negative', 'any', 'none'] as const;
type ListState = Record<(typeof KEYS)[number], string>;

function readState(): ListState {
  const params = new URLSearchParams(window.location.hash.split('?')[1] ?? '');
  return Object.fromEntries(KEYS.map((key) => [key, params.get(key) ?? ''])) as ListState;
}

function writeState(state: ListState): void {
  const params = new URLSearchParams(Object.entries(state).filter(([, value]) => value !== ''));
  const query = params.toString();
  history.replaceState(null, '', `${window.location.pathname}${window.location.search}#/runs${query ? `?${query}` : ''}`);
}

const SORTS: ReadonlyArray<{ key: string; label: string }> = [
  { key: 'duration', label: 'Latency' },
  { key: 'cost', label: 'Cost' },
  { key: 'tokens', label: 'Tokens' },
  { key: 'created', label: 'Started' },
];

function latency(run: { createdAt: number; updatedAt: number; status: string }): string {
  if (run.status === 'running' || run.status === 'paused') return '—';
  return duration(run.updatedAt - run.createdAt);
}

export function Runs({ token, profile: defaultProfile }: { token: string; profile: string }) {
  const [state, setState] = useState<ListState>(readState);
  const [trendsOpen, setTrendsOpen] = useState(false);
  const set = (key: keyof ListState, value: string) => {
    const next = { ...state, [key]: value };
    setState(next);
    writeState(next);
  };
  const sort = state.sort || 'created';
  const order = state.order === 'asc' ? 'asc' : 'desc';
  const since = toMs(state.from);
  const until = toMs(state.to);
  const filter = {
    ...(state.status && state.status !== 'all' ? { status: state.status as Exclude<(typeof STATUSES)[number], 'all'> } : {}),
    ...(state.profile ? { profile: state.profile } : {}),
    ...(state.tool ? { tool: state.tool } : {}),
    ...(since !== undefined ? { since: String(since) } : {}),
    ...(until !== undefined ? { until: String(until) } : {}),
    ...(state.q.trim() ? { q: state.q.trim() } : {}),
    ...((FEEDBACK as readonly string[]).includes(state.feedback) ? { feedback: state.feedback as (typeof FEEDBACK)[number] } : {}),
    sort: sort as 'created' | 'updated' | 'duration' | 'cost' | 'tokens',
    order: order as 'asc' | 'desc',
    limit: '50',
  };
  // Pages follow the cursor the server gives; polling refreshes the pages already loaded.
  const runs = useInfiniteQuery({
    queryKey: ['runs', filter],
    queryFn: ({ pageParam }) => unwrap(client(token).v1.runs.$get({ query: { ...filter, ...(pageParam ? { cursor: pageParam } : {}) } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: 3000,
  });
  // Choices come from the runs the token may see, so a filter never offers a dead end.
  const all = useQuery({
    queryKey: ['runs', 'choices'],
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
  const shown = runs.data?.pages.flatMap((page) => page.runs) ?? [];
  // Two runs picked to compare side by side.
  const [picked, setPicked] = useState<string[]>([]);
  const pick = (runId: string, on: boolean) =>
    setPicked((now) => (on ? [...now.filter((id) => id !== runId), runId].slice(-2) : now.filter((id) => id !== runId)));
  const filtered = Object.entries(state).some(([key, value]) => value !== '' && key !== 'sort' && key !== 'order' && !(key === 'status' && value === 'all'));
  const header = (key: string, label: string) => {
    const active = sort === key;
    return (
      <th scope="col" aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}>
        <button
          type="button"
          className="link sort"
          onClick={() => {
            const next = { ...state, sort: key, order: active && order === 'desc' ? 'asc' : 'desc' };
            setState(next);
            writeState(next);
          }}
        >
          {label}
          {active ? (order === 'asc' ? ' ▲' : ' ▼') : ''}
        </button>
      </th>
    );
  };
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <ProfileBudget token={token} profile={state.profile || defaultProfile} />
      <details className="trends" onToggle={(e) => setTrendsOpen((e.target as HTMLDetailsElement).open)}>
        <summary>Over time: runs, errors, latency and cost a day (last 30 days{state.profile ? `, ${state.profile}` : ''})</summary>
        {trendsOpen ? <Trends token={token} {...(state.profile ? { profile: state.profile } : {})} /> : null}
      </details>
      <div className="filters" role="search" aria-label="Filter runs">
        <Choice label="Status" value={state.status || 'all'} options={STATUSES} onChange={(v) => set('status', v === 'all' ? '' : v)} />
        <Choice label="Profile" value={state.profile} options={choices.profiles} empty="all" onChange={(v) => set('profile', v)} />
        <Choice label="Tool" value={state.tool} options={choices.tools} empty="any" onChange={(v) => set('tool', v)} />
        <Choice label="Feedback" value={state.feedback} options={FEEDBACK} empty="all" onChange={(v) => set('feedback', v)} />
        <label>
          Started from <input type="datetime-local" value={state.from} onChange={(e) => set('from', e.target.value)} />
        </label>
        <label>
          Started before <input type="datetime-local" value={state.to} onChange={(e) => set('to', e.target.value)} />
        </label>
        <label>
          Search <input type="search" value={state.q} onChange={(e) => set('q', e.target.value)} placeholder="goal or run id" />
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
        {runs.isSuccess ? `${shown.length} run(s)${runs.hasNextPage ? ' shown, more below' : ''} · the address keeps these filters` : ''}
      </p>
      <p className="compare-bar">
        {picked.length === 2 ? (
          <a href={`#/compare?a=${encodeURIComponent(picked[0]!)}&b=${encodeURIComponent(picked[1]!)}`}>Compare the two runs picked</a>
        ) : (
          <span className="hint">Pick two runs (Compare) to see them side by side.</span>
        )}
      </p>
      <table className="runs">
        <thead>
          <tr>
            <th scope="col">Compare</th>
            <th scope="col">Goal</th>
            <th scope="col">Status</th>
            <th scope="col">Profile</th>
            <th scope="col">Tools</th>
            {SORTS.map(({ key, label }) => header(key, label))}
          </tr>
        </thead>
        <tbody>
          {shown.map((run) => (
            <tr key={run.runId}>
              <td>
                <input
                  type="checkbox"
                  aria-label={`Compare ${run.goal}`}
                  checked={picked.includes(run.runId)}
                  onChange={(e) => pick(run.runId, e.target.checked)}
                />
              </td>
              <td>
                <a href={`#/runs/${encodeURIComponent(run.runId)}`}>{run.goal}</a>
              </td>
              <td>
                <span className={`status ${run.status}`}>{run.status}</span>
                {run.errorCode ? <code className="bad"> {run.errorCode}</code> : null}
              </td>
              <td>{run.profile}</td>
              <td>{(run.tools ?? []).join(', ')}</td>
              <td>{latency(run)}</td>
              <td>{run.usage ? run.usage.cost : '—'}</td>
              <td>{run.usage ? run.usage.tokens : '—'}</td>
              <td>
                <time dateTime={new Date(run.createdAt).toISOString()}>{new Date(run.createdAt).toLocaleString()}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.hasNextPage ? (
        <p>
          <button type="button" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
            {runs.isFetchingNextPage ? 'Loading…' : 'More runs'}
          </button>
        </p>
      ) : null}
    </section>
  );
}
