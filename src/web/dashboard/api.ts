// The dashboard's side of the API: the one typed client (src/api/client.ts) over the current
// transport — the server that served this page, or the same app running in this tab — with
// the token taken from the URL fragment (never sent to the server in a URL) or session storage.
import { createClient, type ApiClient } from '../../api/client.ts';

export { ApiError, followRun, readEvents, unwrap } from '../../api/client.ts';
export type { Approval, Plan, RunOutcome, RunSummary, ToolInfo, TraceRecord } from '../../api/client.ts';

const TOKEN_KEY = 'cugar.token';
const MODE_KEY = 'cugar.mode';

/** Where requests go: the server that served this page, or the runtime in this tab. */
export type Mode = 'remote' | 'local';

export function initialMode(): Mode {
  if (/(?:^#|&)mode=local/.test(window.location.hash)) {
    localStorage.setItem(MODE_KEY, 'local');
    history.replaceState(null, '', window.location.pathname + window.location.search + '#/runs');
  }
  return localStorage.getItem(MODE_KEY) === 'local' ? 'local' : 'remote';
}

export function saveMode(mode: Mode): void {
  localStorage.setItem(MODE_KEY, mode);
}

let transport: (path: string, init: RequestInit) => Promise<Response> = (path, init) => fetch(path, init);

/**
 * Profile names as the API accepts them (the core's PROFILE_NAME_PATTERN). Repeated here
 * because importing the core's schema module would bring zod into the dashboard's first load.
 */
export const PROFILE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

let current: Mode = 'remote';

/** The mode requests currently go to. */
export function currentMode(): Mode {
  return current;
}

/** Send requests to the in-page runtime (loaded on first use) or back to the server. */
export function setTransport(mode: Mode): void {
  current = mode;
  transport = mode === 'local' ? async (path, init) => (await import('./localApi.ts')).localFetch(path, init) : (path, init) => fetch(path, init);
}

/** Read a token handed over as `#token=…` once, keep it for the session, and clean the address bar. */
export function initialToken(): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]!));
    history.replaceState(null, '', window.location.pathname + window.location.search + '#/runs');
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function clearToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/**
 * Tabs of this browser session hand their token to a new tab (a pasted link, a middle click):
 * session storage is per tab, and keeping the token in local storage would keep it on disk after
 * the browser closes. The channel is this origin's only; a tab answers while it is open.
 */
const TOKEN_CHANNEL = 'cugar.token';

/** Answer other tabs' requests for the token while this page is open. */
export function shareTokenWithOtherTabs(): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(TOKEN_CHANNEL);
  channel.onmessage = (event: MessageEvent<{ type?: string }>) => {
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (event.data?.type === 'ask' && token) channel.postMessage({ type: 'token', token });
  };
  return () => channel.close();
}

/** The token of another open tab of this session, or null when none answers within `waitMs`. */
export function tokenFromOtherTabs(waitMs = 400): Promise<string | null> {
  if (typeof BroadcastChannel === 'undefined') return Promise.resolve(null);
  const channel = new BroadcastChannel(TOKEN_CHANNEL);
  return new Promise((resolve) => {
    const done = (token: string | null) => {
      clearTimeout(timer);
      channel.close();
      resolve(token);
    };
    const timer = setTimeout(() => done(null), waitMs);
    channel.onmessage = (event: MessageEvent<{ type?: string; token?: unknown }>) => {
      if (event.data?.type === 'token' && typeof event.data.token === 'string' && event.data.token) done(event.data.token);
    };
    channel.postMessage({ type: 'ask' });
  });
}

/** A raw request through the current transport (for downloads). */
export function transportFetch(path: string, init: RequestInit): Promise<Response> {
  return transport(path, init);
}

/**
 * The typed API client for `token`, over the current transport.
 *
 * @example
 * const { runs } = await unwrap(client(token).v1.runs.$get({ query: { status: 'paused' } }));
 */
export function client(token: string): ApiClient {
  return createClient({ token, fetch: (path, init) => transport(path, init) });
}
