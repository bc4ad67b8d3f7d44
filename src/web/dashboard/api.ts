// The dashboard's HTTP client: the same API the CLI and other clients use, with the token
// taken from the URL fragment (never sent to the server in a URL) or session storage.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

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

/** Runs started from this page whose first write may not have landed yet. */
export const launched = new Set<string>();

/** A fresh run id for a run this page starts (so it can follow it while the request runs). */
export function newRunId(): string {
  return `run_${crypto.randomUUID().replaceAll('-', '')}`;
}

/** The mode requests currently go to. */
export function currentMode(): Mode {
  return current;
}

/** Send requests to the in-page runtime (loaded on first use) or back to the server. */
export function setTransport(mode: Mode): void {
  current = mode;
  transport =
    mode === 'local'
      ? async (path, init) => (await import('./localApi.ts')).localFetch(path, init)
      : (path, init) => fetch(path, init);
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

/** A raw request through the current transport (for streamed responses). */
export function transportFetch(path: string, init: RequestInit): Promise<Response> {
  return transport(path, init);
}

export async function api<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await transport(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const payload = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!response.ok) throw new ApiError(response.status, payload.error?.code ?? 'http_error', payload.error?.message ?? `HTTP ${response.status}`);
  return payload as T;
}

export interface RunSummary {
  runId: string;
  traceId: string;
  profile: string;
  goal: string;
  status: string;
  createdAt: number;
  updatedAt: number;
  tools?: string[];
}

export interface Approval {
  approvalId: string;
  runId: string;
  tool: string;
  args: Record<string, unknown>;
  reason: string;
  status: string;
  requestedAt: number;
  profile: string;
}

export interface RunOutcome {
  runId: string;
  traceId: string;
  profile: string;
  status: string;
  outputs: Record<string, unknown>;
  stopReason?: string;
  error?: { code: string; message: string };
  pendingApproval?: Approval;
  usage: { cost: number; calls: number; tokens: number };
  budget?: { run: { costCeiling?: number; callCeiling?: number; tokenCeiling?: number; warnThreshold?: number }; profile?: { costCeiling?: number; callCeiling?: number; tokenCeiling?: number; warnThreshold?: number } };
  head: { seq: number; hash: string };
}

export interface TraceRecord {
  seq: number;
  type: string;
  at: number;
  timestamp: string;
  durationMs?: number;
  stepId?: string;
  data: Record<string, unknown>;
}

export interface Candidate {
  tool: string;
  clause: number;
  similarity: number;
  cost: number;
  latency: number;
  score: number;
  selected: boolean;
  reason: string;
}

export interface PlanPreview {
  steps: Array<{ name: string; tool: string; input: Record<string, unknown> }>;
  candidates: Candidate[];
  stopReason: string;
}
