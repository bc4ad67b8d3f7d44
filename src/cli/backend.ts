import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CugarError, parseConfig, type Config, type IngestDocument, type IngestProgress, type JournalEvent, type Plan, type RagHit, type RunOutcome, type ToolInfo } from '../core/index.ts';
import { createRuntime, type Runtime } from '../api/runtime.ts';
import { SqliteStore } from '../edge/sqliteStore.ts';

/** What the CLI needs, whether the data is local or behind a server. */
export interface Backend {
  tools(profile: string): Promise<ToolInfo[]>;
  plan(goal: string, profile: string): Promise<Plan>;
  run(goal: string, profile: string): Promise<RunOutcome>;
  decide(approvalId: string, decision: 'approve' | 'reject', reason: string): Promise<RunOutcome>;
  ingest(profile: string, documents: IngestDocument[], onProgress: (p: IngestProgress) => void): Promise<{ documents: number; chunks: number }>;
  query(profile: string, query: string, k: number): Promise<RagHit[]>;
  journal(runId: string): Promise<JournalEvent[]>;
  runs(): Promise<Array<{ runId: string; status: string; goal: string; profile: string }>>;
  close(): Promise<void>;
}

/** Work on the SQLite file in `dataDir` directly. */
export async function localBackend(dataDir: string, config: Config = parseConfig({ ...process.env }).config): Promise<Backend & { runtime: Runtime }> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const store = new SqliteStore(join(dir, 'cugar.db'));
  const runtime = await createRuntime(store, config);
  return {
    runtime,
    tools: async (profile) => runtime.registry.list(profile),
    plan: async (goal, profile) => runtime.planner.plan({ goal, profile, registry: runtime.registry.sandbox(profile), traceId: 'dry-run', runId: 'dry-run' }),
    run: (goal, profile) => runtime.orchestrator.start(goal, profile),
    decide: (approvalId, decision, reason) => runtime.orchestrator.resolveApproval(approvalId, { decision, reason, by: `cli:${process.env['USER'] ?? 'user'}` }),
    ingest: (profile, documents, onProgress) => runtime.loader.ingest(profile, documents, { onProgress }),
    query: (profile, query, k) => runtime.retriever.search(profile, query, { k }),
    journal: async (runId) => {
      const events = await store.readJournal(runId);
      if (events.length === 0) throw new CugarError(`no run ${runId}`, { code: 'unknown_run', failureMode: 'USER' });
      return events;
    },
    runs: async () => (await store.listRuns({ limit: 50 })).map(({ runId, status, goal, profile }) => ({ runId, status, goal, profile })),
    close: () => store.close(),
  };
}

/** Work against a CUGAr server over HTTP. */
export function remoteBackend(api: string, token: string): Backend {
  const base = api.replace(/\/$/, '');
  const call = async <T>(method: string, path: string, body?: unknown, accept?: string): Promise<Response & { json(): Promise<T> }> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(accept ? { accept } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) {
      const payload = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
      const status = response.status;
      throw new CugarError(payload.error?.message ?? `HTTP ${status}`, { code: payload.error?.code ?? `http_${status}`, failureMode: status === 403 ? 'POLICY' : status >= 500 ? 'SYSTEM' : 'USER' });
    }
    return response as Response & { json(): Promise<T> };
  };
  return {
    tools: async (profile) => (await (await call<{ tools: ToolInfo[] }>('GET', `/v1/profiles/${encodeURIComponent(profile)}/tools`)).json()).tools,
    plan: async (goal, profile) => (await call<Plan>('POST', '/v1/plan', { goal, profile })).json(),
    run: async (goal, profile) => (await call<RunOutcome>('POST', `/v1/runs?wait=25`, { goal, profile })).json(),
    decide: async (approvalId, decision, reason) => (await call<RunOutcome>('POST', `/v1/approvals/${encodeURIComponent(approvalId)}`, { decision, reason })).json(),
    ingest: async (profile, documents, onProgress) => {
      const response = await call<never>('POST', '/v1/ingest', { profile, documents }, 'text/event-stream');
      const text = await response.text();
      let report = { documents: 0, chunks: 0 };
      for (const block of text.split('\n\n')) {
        const event = /^event: (\w+)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!event || !data) continue;
        if (event === 'progress') onProgress(JSON.parse(data) as IngestProgress);
        if (event === 'done') report = JSON.parse(data) as typeof report;
        if (event === 'error') {
          const { error } = JSON.parse(data) as { error: { code: string; message: string } };
          throw new CugarError(error.message, { code: error.code, failureMode: 'USER' });
        }
      }
      return report;
    },
    query: async (profile, query, k) => (await (await call<{ hits: RagHit[] }>('POST', '/v1/query', { profile, query, k })).json()).hits,
    journal: async (runId) => (await (await call<{ events: JournalEvent[] }>('GET', `/v1/runs/${encodeURIComponent(runId)}/journal`)).json()).events,
    runs: async () => (await (await call<{ runs: Array<{ runId: string; status: string; goal: string; profile: string }> }>('GET', '/v1/runs?limit=50')).json()).runs,
    close: async () => undefined,
  };
}
