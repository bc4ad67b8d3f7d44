import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Suspense, lazy, useEffect, useState, type FormEvent } from 'react';
import {
  PROFILE_PATTERN,
  client,
  clearToken,
  initialMode,
  initialToken,
  saveMode,
  saveToken,
  setTransport,
  shareTokenWithOtherTabs,
  tokenFromOtherTabs,
  type Mode,
  unwrap,
} from './api.ts';
import { Approvals } from './Approvals.tsx';
import { Playground } from './Playground.tsx';
import { Memory } from './Memory.tsx';
import { Runs } from './Runs.tsx';
import { Tools } from './Tools.tsx';

/** The in-page app's token (see localApi.ts); kept here so the main chunk does not load the runtime. */
const LOCAL_TOKEN = 'local-mode-token-in-this-tab';

// A run's page and the audit screen draw trace timelines with TanStack Virtual, a third of the
// first load otherwise: they load when first opened (the service worker precaches them).
const RunDetail = lazy(() => import('./RunDetail.tsx').then((m) => ({ default: m.RunDetail })));
const Audit = lazy(() => import('./Audit.tsx').then((m) => ({ default: m.Audit })));
// Local mode only: the tab's own vault of tool credentials.
const Secrets = lazy(() => import('./Secrets.tsx'));
// Local mode only: the model this tab's agent runs call.
const ModelSettings = lazy(() => import('./ModelSettings.tsx'));
// Local mode only: the MCP servers this tab calls.
const McpSettings = lazy(() => import('./McpSettings.tsx'));
const NetworkSettings = lazy(() => import('./NetworkSettings.tsx'));
const Compare = lazy(() => import('./Compare.tsx').then((m) => ({ default: m.Compare })));
const ToolEditor = lazy(() => import('./ToolEditor.tsx').then((m) => ({ default: m.ToolEditor })));

/** The dashboard's pages; any other route shows "Page not found". */
const PAGES: ReadonlySet<string> = new Set(['runs', 'compare', 'playground', 'approvals', 'memory', 'tools', 'audit', 'secrets', 'model', 'mcp', 'network']);

/** The current hash route: `#/runs`, `#/runs/<id>`, `#/playground`, `#/approvals`, `#/audit`. */
function useRoute(): string[] {
  // A page's own state (filters, a goal) rides after `?` and is the page's to read.
  const read = () => (window.location.hash.replace(/^#\/?/, '').split('?')[0] || 'runs').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

const PROFILE_KEY = 'cugar.profile';

/** The profile the Runs, Memory and Tools screens show; kept in this browser. */
function ProfileField({ profile, onChange }: { profile: string; onChange: (profile: string) => void }) {
  const [value, setValue] = useState(profile);
  const valid = PROFILE_PATTERN.test(value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) onChange(value);
  };
  return (
    <form className="profile-field" onSubmit={submit} onBlur={() => valid && value !== profile && onChange(value)}>
      <label htmlFor="profile-field">Profile</label>{' '}
      <input id="profile-field" value={value} size={10} onChange={(e) => setValue(e.target.value)} aria-invalid={!valid} />
    </form>
  );
}

function TokenForm({ onToken, onLocal, rejected }: { onToken: (token: string) => void; onLocal: () => void; rejected?: boolean }) {
  const [value, setValue] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (value.trim()) onToken(value.trim());
  };
  return (
    <main className="panel narrow">
      <h1>CUGAr</h1>
      {rejected ? (
        <p className="error" role="alert">
          The server refused the token this tab had (it may have been replaced, or the server uses other tokens now). Paste the current one.
        </p>
      ) : null}
      <p>Paste the token the server printed when it started (or open the address it printed, which carries the token).</p>
      <form onSubmit={submit} className="stack">
        <label htmlFor="token">Bearer token</label>
        <input id="token" type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} />
        <button type="submit">Connect</button>
      </form>
      <h2>No server?</h2>
      <p>Run everything in this browser: runs, approvals and journals are kept in this browser's storage and work offline.</p>
      <button type="button" onClick={onLocal}>
        Use this browser
      </button>
    </main>
  );
}

export function App() {
  const [mode, setMode] = useState<Mode>(() => initialMode());
  setTransport(mode);
  const [token, setToken] = useState<string | null>(() => (mode === 'local' ? LOCAL_TOKEN : initialToken()));
  const goLocal = () => {
    saveMode('local');
    setTransport('local');
    setMode('local');
    setToken(LOCAL_TOKEN);
  };
  const goRemote = () => {
    saveMode('remote');
    setTransport('remote');
    setMode('remote');
    setToken(initialToken());
  };
  const route = useRoute();
  const [profile, setProfile] = useState(() => localStorage.getItem(PROFILE_KEY) ?? 'demo');
  const chooseProfile = (next: string) => {
    localStorage.setItem(PROFILE_KEY, next);
    setProfile(next);
  };
  // A tab opened without a token asks this session's other tabs for theirs first.
  const [asking, setAsking] = useState(() => mode === 'remote' && token === null);
  const [rejected, setRejected] = useState(false);
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!asking) return;
    let live = true;
    void tokenFromOtherTabs().then((shared) => {
      if (!live) return;
      if (shared) {
        saveToken(shared);
        setToken(shared);
      }
      setAsking(false);
    });
    return () => void (live = false);
  }, [asking]);
  useEffect(() => (mode === 'remote' ? shareTokenWithOtherTabs() : undefined), [mode]);
  const pending = useQuery({
    queryKey: ['approvals', 'pending'],
    queryFn: () => unwrap(client(token!).v1.approvals.$get({ query: { status: 'pending' } })),
    enabled: token !== null,
    refetchInterval: 3000,
  });
  // A refused token is forgotten (so no other tab is handed it) and the sign-in form says why.
  const refused = mode === 'remote' && token !== null && (pending.error as { status?: number } | null)?.status === 401;
  useEffect(() => {
    if (!refused) return;
    clearToken();
    setRejected(true);
    setToken(null);
  }, [refused]);
  const signIn = (t: string) => {
    // The inbox query (shared with the Approvals page) starts afresh: no refusal of the old token lingers.
    queryClient.removeQueries({ queryKey: ['approvals', 'pending'] });
    saveToken(t);
    setRejected(false);
    setToken(t);
  };
  if (asking) return <main className="panel narrow" aria-busy="true" />;
  if (!token || refused) return <TokenForm onToken={signIn} onLocal={goLocal} rejected={rejected || refused} />;
  const count = pending.data?.approvals.length ?? 0;
  const [page, id] = route;
  const link = (href: string, label: string, extra?: string) => (
    <a href={`#/${href}`} aria-current={page === href ? 'page' : undefined}>
      {label}
      {extra}
    </a>
  );
  return (
    <>
      <header className="top">
        <span className="brand">CUGAr</span>
        <nav aria-label="Main">
          {link('runs', 'Runs')}
          {link('playground', 'Playground')}
          <a href="#/approvals" aria-current={page === 'approvals' ? 'page' : undefined}>
            Approvals{' '}
            <span className={count ? 'badge' : 'badge muted'} aria-label={`${count} pending`}>
              {count}
            </span>
          </a>
          {link('memory', 'Memory')}
          {link('tools', 'Tools')}
          {link('audit', 'Audit')}
          {mode === 'local' ? link('secrets', 'Secrets') : null}
          {mode === 'local' ? link('model', 'Model') : null}
          {mode === 'local' ? link('mcp', 'MCP') : null}
          {mode === 'local' ? link('network', 'Network') : null}
        </nav>
        <ProfileField profile={profile} onChange={chooseProfile} />
        <span className="mode" aria-label={`mode: ${mode === 'local' ? 'in this browser' : 'server'}`}>
          {mode === 'local' ? 'In this browser' : 'Server'}
        </span>
        {mode === 'local' ? (
          <button type="button" className="link" onClick={goRemote}>
            Use a server
          </button>
        ) : (
          <button type="button" className="link" onClick={() => (clearToken(), setToken(null))}>
            Sign out
          </button>
        )}
      </header>
      <main className="panel">
        <Suspense fallback={<p role="status">Loading…</p>}>
          {page === 'runs' && id ? <RunDetail token={token} runId={id} /> : null}
          {page === 'runs' && !id ? <Runs token={token} profile={profile} /> : null}
          {page === 'playground' ? <Playground token={token} profile={profile} /> : null}
          {page === 'approvals' ? <Approvals token={token} /> : null}
          {page === 'memory' ? <Memory token={token} profile={profile} /> : null}
          {page === 'tools' && id !== 'edit' ? <Tools token={token} profile={profile} /> : null}
          {page === 'tools' && id === 'edit' ? <ToolEditor token={token} profile={profile} initialName={route[2]} /> : null}
          {page === 'audit' ? <Audit token={token} /> : null}
          {page === 'compare' ? <Compare token={token} /> : null}
          {page === 'secrets' && mode === 'local' ? <Secrets /> : null}
          {!PAGES.has(page ?? '') || ((page === 'secrets' || page === 'model' || page === 'mcp' || page === 'network') && mode !== 'local') ? (
            <section className="stack">
              <h1>Page not found</h1>
              <p>
                There is no page at <code>#/{route.join('/')}</code>. <a href="#/runs">Go to the runs</a>.
              </p>
            </section>
          ) : null}
          {page === 'model' && mode === 'local' ? <ModelSettings /> : null}
          {page === 'mcp' && mode === 'local' ? <McpSettings /> : null}
          {page === 'network' && mode === 'local' ? <NetworkSettings /> : null}
        </Suspense>
      </main>
    </>
  );
}
