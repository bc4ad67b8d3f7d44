import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ClientResponse } from 'hono/client';
import {
  CugarError,
  envSecrets,
  parseConfig,
  registerSecretValues,
  parseJournal,
  webSettingsFromEnv,
  type Config,
  type IngestDocument,
  type IngestProgress,
  type IngestReport,
  type JournalEvent,
} from '../core/index.ts';
import {
  ApiError,
  createClient,
  errorOf,
  followRun,
  readEvents,
  unwrap,
  type Plan,
  type RagHit,
  type RunAccepted,
  type RunOutcome,
  type ToolInfo,
} from '../api/client.ts';
import { babelParser } from '../api/codeParser.ts';
import { hostModels } from '../api/models.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from '../api/runtime.ts';
import { mcpPolicyEnforcer, mcpSettingsFromEnv, registerKeptMcpServers } from '../mcp/hostSetup.ts';
import { fileListingCache } from '../mcp/listingCache.ts';
import { stdioLauncher } from '../mcp/stdio.ts';
import { hostSigningKey } from '../edge/hostKey.ts';
import { installNodeDigest } from '../edge/nodeDigest.ts';
import { createNodeHeadSigner } from '../edge/nodeSigner.ts';
import { SqliteStore } from '../edge/sqliteStore.ts';
import { orchestratorOptionsOf, type HostSettings } from './hostConfig.ts';

/** What the CLI needs, whether the data is local or behind a server. */
export interface Backend {
  tools(profile: string): Promise<ToolInfo[]>;
  plan(goal: string, profile: string): Promise<Plan>;
  run(goal: string, profile: string): Promise<RunOutcome>;
  decide(approvalId: string, decision: 'approve' | 'reject', reason: string): Promise<RunOutcome>;
  ingest(profile: string, documents: IngestDocument[], onProgress: (p: IngestProgress) => void): Promise<IngestReport>;
  query(profile: string, query: string, k: number): Promise<RagHit[]>;
  /** A run's journal: redacted (a derived journal) from a server unless `raw`; as stored from a local data directory. */
  journal(runId: string, options?: { raw?: boolean }): Promise<JournalEvent[]>;
  runs(): Promise<Array<{ runId: string; status: string; goal: string; profile: string }>>;
  /** Continue a run from its journal (after a crash, or a recoverable failure). */
  resume(runId: string): Promise<RunOutcome>;
  cancel(runId: string, reason: string): Promise<RunOutcome>;
  close(): Promise<void>;
}

/** Work on the SQLite file in `dataDir` directly. */
export async function localBackend(
  dataDir: string,
  config: Config = parseConfig({ ...process.env }).config,
  options: Pick<RuntimeOptions, 'policy'> & { mcp?: 'kept' | 'none'; settings?: HostSettings } = {},
): Promise<Backend & { runtime: Runtime }> {
  installNodeDigest();
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  // The configuration file and the environment, as `cugar serve` on this directory reads them
  // (src/cli/localSettings.ts); without them (embedders of this function), the environment alone.
  const settings = options.settings;
  if (settings?.file) config = settings.config;
  const orchestrator = settings ? orchestratorOptionsOf(settings.orchestrator) : {};
  // Runs made here are signed with the key the Node host on this directory uses.
  const signer = createNodeHeadSigner(hostSigningKey(dir, () => undefined));
  const dbPath = settings?.orchestrator.dbPath;
  const store = new SqliteStore(dbPath ? resolve(dbPath) : join(dir, 'cugar.db'), { signer });
  // The MCP servers of the file or CUGAR_MCP_SERVERS, from the listings a host kept here: their
  // tools list, replay and run (each call starts or reaches its server) without contacting any server now.
  const mcp = settings?.mcp ?? mcpSettingsFromEnv(process.env);
  // Tools run here read the same credentials a server would (`secrets` of the file, `CUGAR_SECRET_<NAME>`).
  const secrets = settings?.secrets ?? envSecrets(process.env);
  // With models configured (CUGAR_MODEL_URL and CUGAR_MODEL, the file's `models`, or --model), local runs are agent runs, as on a server.
  const models = hostModels(settings?.modelEnv ?? { ...process.env }, config);
  // Imported here, not at the top: commands that never open a data directory never load the Node host.
  const { nodeToolVersionSettings } = await import('../edge/nodeServer.ts');
  const runtime = await createRuntime(store, config, {
    codeParser: babelParser,
    // The tool versions a host on this directory registered: runs here use them, replays resolve them.
    toolVersions: nodeToolVersionSettings(orchestrator.parallelSteps),
    secrets,
    signer,
    ...(models ? { models } : {}),
    ...(settings?.approval ? { approval: settings.approval } : {}),
    ...(settings?.profileBudgets ? { profileBudgets: settings.profileBudgets } : {}),
    orchestrator,
    policy: options.policy ?? mcpPolicyEnforcer(mcp.allow),
  });
  // web_search and internet_extract as `cugar serve` registers them: the corpus by default, SearXNG
  // (CUGAR_SEARXNG_URL) and page fetches only in profiles the policy lets use the network.
  const [{ registerHostWebTools }, { nodeTransport }] = await Promise.all([import('../edge/webToolsSetup.ts'), import('../edge/nodeFetch.ts')]);
  registerHostWebTools(runtime, (guard) => nodeTransport(guard), webSettingsFromEnv(process.env));
  const servers =
    options.mcp === 'none' ? [] : registerKeptMcpServers(runtime.registry, mcp, { cache: fileListingCache(join(dir, 'mcp')), secrets, stdio: stdioLauncher });
  await runtime.toolVersions?.load(runtime.registry.profiles());
  return {
    runtime,
    tools: async (profile) => runtime.registry.list(profile),
    plan: async (goal, profile) => runtime.planner.plan({ goal, profile, registry: runtime.registry.sandbox(profile), traceId: 'dry-run', runId: 'dry-run' }),
    run: (goal, profile) => runtime.orchestrator.start(goal, profile),
    decide: (approvalId, decision, reason) =>
      runtime.orchestrator.resolveApproval(approvalId, { decision, reason, by: `cli:${process.env['USER'] ?? 'user'}` }),
    ingest: (profile, documents, onProgress) => runtime.loader.ingest(profile, documents, { onProgress }),
    query: (profile, query, k) => runtime.retriever.search(profile, query, { k }),
    journal: async (runId) => {
      const events = await store.readJournal(runId);
      if (events.length === 0) throw new CugarError(`no run ${runId}`, { code: 'unknown_run', failureMode: 'USER' });
      return events;
    },
    runs: async () => (await store.listRuns({ limit: 50 })).map(({ runId, status, goal, profile }) => ({ runId, status, goal, profile })),
    resume: (runId) => runtime.orchestrator.resume(runId),
    cancel: (runId, reason) => runtime.orchestrator.cancel(runId, reason),
    close: async () => {
      await Promise.all(servers.map((server) => server.close()));
      await store.close();
    },
  };
}

/** An API failure as the CLI reports it: the server's code, and a failure mode that picks the exit code. */
function cliError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  return new CugarError(error.message, { code: error.code, failureMode: error.status === 403 ? 'POLICY' : error.status >= 500 ? 'SYSTEM' : 'USER' });
}

/** Work against a CUGAr server over HTTP, through the typed client. */
export function remoteBackend(api: string, token: string): Backend {
  // The token is a secret of this process: nothing the CLI prints may show it.
  registerSecretValues([token]);
  // A server that cannot be reached is a clear error (exit 1), not a stack from `fetch failed`.
  const reach = async (url: string, init: RequestInit): Promise<Response> => {
    try {
      return await fetch(url, init);
    } catch (cause) {
      if ((init.signal as AbortSignal | undefined)?.aborted) throw cause;
      throw new CugarError(
        `cannot reach the CUGAr server at ${api}: ${cause instanceof Error && cause.cause instanceof Error ? cause.cause.message : String(cause)}`,
        {
          code: 'api_unreachable',
          failureMode: 'SYSTEM',
          cause,
        },
      );
    }
  };
  const client = createClient({ baseUrl: api, token, fetch: reach });
  const call = <R extends ClientResponse<unknown, number, string>>(request: Promise<R>) =>
    unwrap(request).catch((error: unknown) => Promise.reject(cliError(error)));
  const settled = async (answer: RunOutcome | RunAccepted): Promise<RunOutcome> =>
    'links' in answer ? followRun(client, answer.runId).catch((error: unknown) => Promise.reject(cliError(error))) : answer;
  return {
    tools: async (profile) => (await call(client.v1.profiles[':profile'].tools.$get({ param: { profile: encodeURIComponent(profile) } }))).tools,
    plan: (goal, profile) => call(client.v1.plan.$post({ json: { goal, profile } })),
    // Accepted at once, then followed over the run's event stream until it finishes or pauses.
    run: async (goal, profile) => settled(await call(client.v1.runs.$post({ json: { goal, profile }, query: {}, header: {} }))),
    decide: (approvalId, decision, reason) =>
      call(client.v1.approvals[':approvalId'].$post({ param: { approvalId: encodeURIComponent(approvalId) }, json: { decision, reason } })),
    ingest: async (profile, documents, onProgress) => {
      const response = await client.v1.ingest.$post({ json: { profile, documents } }, { headers: { accept: 'text/event-stream' } });
      if (!response.ok) throw cliError(await errorOf(response));
      let report: IngestReport | undefined;
      let failure: CugarError | undefined;
      await readEvents(response, (event) => {
        if (event.event === 'progress') onProgress(JSON.parse(event.data) as IngestProgress);
        if (event.event === 'done') report = JSON.parse(event.data) as IngestReport;
        if (event.event === 'error') {
          const { error } = JSON.parse(event.data) as { error: { code: string; message: string } };
          failure = new CugarError(error.message, { code: error.code, failureMode: 'USER' });
        }
      });
      if (failure) throw failure;
      if (!report) throw new CugarError('the ingest stream ended without a report', { code: 'ingest_incomplete', failureMode: 'SYSTEM' });
      return report;
    },
    query: async (profile, query, k) => (await call(client.v1.query.$post({ json: { profile, query, k } }))).hits,
    // NDJSON, read by the core's journal parser: the events come back checked and typed.
    journal: async (runId, options = {}) => {
      const response = await client.v1.runs[':runId'].journal.$get({
        param: { runId: encodeURIComponent(runId) },
        query: { format: 'ndjson', ...(options.raw ? { raw: 'true' as const } : {}) },
      });
      if (!response.ok) throw cliError(await errorOf(response));
      return parseJournal(await response.text());
    },
    runs: async () => (await call(client.v1.runs.$get({ query: { limit: '50' } }))).runs,
    resume: (runId) => call(client.v1.runs[':runId'].resume.$post({ param: { runId: encodeURIComponent(runId) } })),
    cancel: (runId) => call(client.v1.runs[':runId'].cancel.$post({ param: { runId: encodeURIComponent(runId) } })),
    close: async () => undefined,
  };
}
