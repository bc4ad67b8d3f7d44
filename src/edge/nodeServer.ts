import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { serveStatic } from '@hono/node-server/serve-static';
import { parse as parseJavaScript } from '@babel/parser';
import { z } from 'zod';
import {
  CugarError,
  DOCUMENT_EXTENSIONS,
  PROFILE_NAME_PATTERN,
  ToolBudgetSchema,
  parseConfig,
  envSecrets,
  redactText,
  registerSecretValues,
  webSettingsFromEnv,
  type Secrets,
  type ApprovalPolicy,
  type Config,
  type ToolBudgetInput,
  type WebToolsSettingsInput,
} from '../core/index.ts';
import { createApp } from '../api/app.ts';
import { PROCESS_LIFETIME_CONTEXT } from '../api/executionContext.ts';
import { SECURE_HEADERS, requestIdFor } from '../api/middleware.ts';
import { babelParser } from '../api/codeParser.ts';
import { otlpSettingsFromEnv, type OtlpSettingsInput } from '../api/otlpExport.ts';
import { hostModels } from '../api/models.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from '../api/runtime.ts';
import { RAW_JOURNAL_SCOPE, type TokenMap } from '../api/security.ts';
import { parseTokenMap } from '../api/tokens.ts';
import { connectMcpServers, mcpPolicyEnforcer, mcpSettingsFromEnv, type McpHostSettings } from '../mcp/hostSetup.ts';
import { mountMcp } from '../mcp/httpRoute.ts';
import { fileListingCache } from '../mcp/listingCache.ts';
import { stdioLauncher } from '../mcp/stdio.ts';
import { installNodeDigest } from './nodeDigest.ts';
import { createNodeHeadSigner } from './nodeSigner.ts';
import { createNodeSandbox } from './nodeSandbox.ts';
import { nodeTransport } from './nodeFetch.ts';
import { hostLocalToken, hostSigningKey } from './hostKey.ts';
import { startRetention } from './retention.ts';
import { SqliteStore } from './sqliteStore.ts';
import { registerHostWebTools } from './webToolsSetup.ts';
import { browserSettingsFromEnv, registerNodeBrowserTools, type NodeBrowserSettings } from './domBrowserNode.ts';

/** Options of {@link startServer}. */
export interface ServeOptions {
  port?: number;
  hostname?: string;
  /** Where the SQLite file lives. Default `.cugar`. */
  dataDir?: string;
  /** Bearer tokens; when empty a local token is generated, and only loopback may be bound. */
  tokens?: TokenMap;
  corsOrigins?: string[];
  /** Documents ingested into the default profile on first start. Default `public/corpus`. */
  corpusDir?: string;
  /** Static files served at `/`. Default `public`. */
  staticDir?: string;
  config?: Config;
  /** SQLite durability; default NORMAL (survives process crashes), FULL also survives power loss. */
  synchronous?: 'FULL' | 'NORMAL';
  /** Per-token rate limit; default 50 requests/s with bursts of 100. */
  rateLimit?: { perSecond: number; burst: number };
  /** The head-signing key (64 hex characters); default `CUGAR_SIGNING_KEY`, else `<dataDir>/host.key`. */
  signingKey?: string;
  /** Live OpenTelemetry export; default from `OTEL_EXPORTER_OTLP_*` and `OTEL_SERVICE_NAME`. */
  otlp?: OtlpSettingsInput;
  /** Credentials tools read by name; default every `CUGAR_SECRET_<NAME>` of the environment. */
  secrets?: Secrets;
  /** Take the client's address from X-Forwarded-For (behind your own proxy only). Default `CUGAR_TRUST_PROXY=1`. */
  trustProxy?: boolean;
  /** SearXNG endpoint, SSRF allow-list and fetch limits of the web tools; default from `CUGAR_SEARXNG_URL`, `CUGAR_NET_ALLOW`, `CUGAR_FETCH_*`. */
  web?: WebToolsSettingsInput;
  /** Shared ceilings per profile; default from `CUGAR_PROFILE_BUDGETS`. */
  profileBudgets?: Record<string, ToolBudgetInput>;
  /** How long approvals wait, what they become then, and which extra calls need one. Default: they wait forever. */
  approval?: ApprovalPolicy;
  /** Retry, routing, worker pool and default run budget (the configuration file's). */
  orchestrator?: RuntimeOptions['orchestrator'];
  /** The SQLite file; default `<dataDir>/cugar.db`. */
  databasePath?: string;
  /** Delete the journals of runs finished more than this many days ago (`audit.retention_days`); absent keeps them all. */
  retentionDays?: number;
  /** How often expired approvals are swept, in milliseconds. Default 1 s. */
  sweepIntervalMs?: number;
  /**
   * Model settings (`CUGAR_MODEL_URL`, `CUGAR_MODEL`, `CUGAR_MODEL_KEY`, `CUGAR_MODEL_STREAM`, …);
   * default the process environment. With a model, runs are agent runs unless they ask for the lexical path.
   */
  modelEnv?: Record<string, string | undefined>;
  /** Origins and page parts of the DOM tools' browser (Playwright, optional); default `CUGAR_BROWSER_ALLOW`, else no browser tools. */
  browser?: NodeBrowserSettings;
  /** MCP servers whose tools join profiles, and what each profile allows of them; default `CUGAR_MCP_SERVERS` and `CUGAR_MCP_ALLOW`. */
  mcp?: McpHostSettings;
  log?: (line: string) => void;
}

/** A running server. */
export interface RunningServer {
  url: string;
  /** The generated local token, when none was configured. */
  localToken?: string;
  runtime: Runtime;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Parse `CUGAR_RATE_LIMIT`: `perSecond,burst`. */
export function parseRateLimit(text: string | undefined): { perSecond: number; burst: number } | undefined {
  if (!text) return undefined;
  const [perSecond, burst] = text.split(',').map(Number);
  if (!(perSecond! > 0) || !(burst! >= 1)) throw new Error('CUGAR_RATE_LIMIT must be "perSecond,burst" with positive numbers');
  return { perSecond: perSecond!, burst: burst! };
}

const ProfileBudgetsSchema = z.record(z.string().regex(PROFILE_NAME_PATTERN), ToolBudgetSchema.partial().strict());

/** Parse `CUGAR_PROFILE_BUDGETS`: JSON such as `{"demo":{"costCeiling":50,"callCeiling":500}}`. */
export function parseProfileBudgets(text: string | undefined): Record<string, ToolBudgetInput> | undefined {
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('CUGAR_PROFILE_BUDGETS must be JSON such as {"demo":{"costCeiling":50}}');
  }
  const parsed = ProfileBudgetsSchema.safeParse(value);
  if (!parsed.success) throw new Error(`CUGAR_PROFILE_BUDGETS is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/**
 * The host drives time: approval deadlines fire on their own, without a request to re-drive
 * the run. One sweep at a time; the timer never keeps the process alive by itself.
 */
function sweepApprovals(runtime: Runtime, intervalMs: number, log: (line: string) => void): ReturnType<typeof setInterval> {
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    runtime.orchestrator
      .sweepApprovals()
      .catch((error: unknown) => log(`approval sweep failed: ${redactText(error instanceof Error ? error.message : String(error))}`))
      .finally(() => (sweeping = false));
  }, intervalMs);
  timer.unref();
  return timer;
}

/** Parse `CUGAR_TOKENS`: `token=profile1,profile2;other=*`. */
export const parseTokens = parseTokenMap;

/**
 * Runs that a previous process was driving when it stopped (still `running` in the store: a
 * crash, a kill, a restart while a 202-accepted run was going on) continue from their
 * journals, in the background. Completed steps never run again; a step whose result was not
 * recorded re-runs only if its tool is idempotent, otherwise it waits for a person.
 */
async function resumeInterrupted(runtime: Runtime, log: (line: string) => void): Promise<void> {
  const interrupted = await runtime.store.listRuns({ status: 'running' });
  if (interrupted.length) log(`resuming ${interrupted.length} interrupted run(s)`);
  for (const run of interrupted) {
    runtime.orchestrator
      .resume(run.runId)
      .catch((error: unknown) => log(`resuming ${run.runId} failed: ${redactText(error instanceof Error ? error.message : String(error))}`));
  }
}

/**
 * Where the Node host (and the CLI on its data directory) runs tools written at run time:
 * worker_threads workers, audited with @babel/parser first; up to `poolSize` workers per tool
 * (the worker pool), so a parallel wave of steps runs on several cores.
 */
export function nodeToolVersionSettings(poolSize = 1): NonNullable<RuntimeOptions['toolVersions']> {
  return { sandbox: createNodeSandbox({ poolSize }), parser: parseJavaScript };
}

/**
 * The Node host: the API and the static files on one port, data in SQLite under `dataDir`.
 * With no tokens it binds loopback only and prints a generated local token; binding any
 * other address without tokens is refused.
 */
export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  installNodeDigest();
  const log = options.log ?? ((line) => process.stderr.write(`${redactText(line)}\n`));
  const hostname = options.hostname ?? '127.0.0.1';
  const port = options.port ?? 8787;
  let tokens = options.tokens ?? {};
  let localToken: string | undefined;
  if (Object.keys(tokens).length === 0 && !LOOPBACK.has(hostname))
    throw new CugarError(`refusing to bind ${hostname} without tokens: set CUGAR_TOKENS, or bind 127.0.0.1`, {
      code: 'tokens_required',
      failureMode: 'USER',
    });
  const config = options.config ?? parseConfig({ ...process.env }).config;
  const dataDir = resolve(options.dataDir ?? '.cugar');
  mkdirSync(dataDir, { recursive: true });
  if (Object.keys(tokens).length === 0) {
    // The local token is the machine owner's: every profile, and raw journal exports. It is kept
    // in the data directory, so links with it and signed-in tabs survive a restart.
    localToken = hostLocalToken(dataDir, log);
    tokens = { [localToken]: { profiles: '*', scopes: [RAW_JOURNAL_SCOPE] } };
  }
  const signingKey = options.signingKey ?? hostSigningKey(dataDir, log);
  const signer = createNodeHeadSigner(signingKey);
  // WAL with synchronous=NORMAL survives process crashes (every SIGKILL test runs this way) and
  // halves the cost of a commit; CUGAR_SQLITE_SYNC=FULL also survives power loss. The store signs
  // its log of heads with the key that signs the runs' heads.
  const databasePath = resolve(options.databasePath ?? join(dataDir, 'cugar.db'));
  mkdirSync(dirname(databasePath), { recursive: true });
  const store = new SqliteStore(databasePath, {
    synchronous: options.synchronous ?? (process.env['CUGAR_SQLITE_SYNC'] === 'FULL' ? 'FULL' : 'NORMAL'),
    signer,
  });
  const profileBudgets = options.profileBudgets ?? parseProfileBudgets(process.env['CUGAR_PROFILE_BUDGETS']);
  // What this process holds as secrets is redacted on every channel, whatever its shape (the
  // generated local token is left out: it is printed below on purpose, for the person who started the host).
  registerSecretValues([signingKey, ...Object.keys(options.tokens ?? {})]);
  const models = hostModels(options.modelEnv ?? { ...process.env }, config, log);
  if (models) log(`agent runs use ${models.settings.models.join(', ')} at ${models.settings.url}`);
  // Live OpenTelemetry export when OTEL_EXPORTER_OTLP_ENDPOINT is set; its headers (API keys of the backend) are secrets.
  const otlp = options.otlp ?? otlpSettingsFromEnv(process.env);
  if (otlp?.headers) registerSecretValues(Object.values(otlp.headers));
  const mcp = options.mcp ?? mcpSettingsFromEnv(process.env);
  const secrets = options.secrets ?? envSecrets(process.env);
  // The sandbox of tools written at run time: its workers are terminated when the host closes.
  const toolSandbox = nodeToolVersionSettings(options.orchestrator?.parallelSteps);
  const runtime = await createRuntime(store, config, {
    signer,
    codeParser: babelParser,
    policy: mcpPolicyEnforcer(mcp.allow),
    ...(models ? { models } : {}),
    secrets,
    ...(profileBudgets ? { profileBudgets } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
    ...(otlp ? { otlp, log } : {}),
    ...(options.orchestrator ? { orchestrator: options.orchestrator } : {}),
    toolVersions: toolSandbox,
  });
  registerHostWebTools(runtime, (guard) => nodeTransport(guard), options.web ?? webSettingsFromEnv(process.env));
  // The DOM tools drive a Chromium page only when the operator names the origins it may load.
  const browserSettings = options.browser ?? browserSettingsFromEnv(process.env);
  const nodeBrowser = browserSettings ? registerNodeBrowserTools(runtime, browserSettings).browser : undefined;

  // MCP servers' tools join their profiles before anything is served or resumed.
  // Each server's listing is kept beside the database: a server away at the next start keeps its tools (runs resume and replay).
  const mcpServers = await connectMcpServers(runtime.registry, mcp, { secrets, stdio: stdioLauncher, log, cache: fileListingCache(join(dataDir, 'mcp')) });
  // Profiles the MCP servers added keep their tool versions too, before any run resumes.
  await runtime.toolVersions?.load(runtime.registry.profiles());

  const corpusDir = resolve(options.corpusDir ?? 'public/corpus');
  if ((await runtime.vectors.count(config.defaultProfile)) === 0 && existsSync(corpusDir)) {
    const documents = readdirSync(corpusDir)
      .filter((name) => (DOCUMENT_EXTENSIONS as readonly string[]).some((ext) => name.toLowerCase().endsWith(ext)))
      .sort()
      .map((name) => ({ path: name, text: readFileSync(join(corpusDir, name), 'utf8') }));
    if (documents.length) {
      const report = await runtime.loader.ingest(config.defaultProfile, documents);
      log(`ingested the sample corpus: ${report.documents} documents, ${report.chunks} chunks`);
    }
  }

  const trustProxy = options.trustProxy ?? process.env['CUGAR_TRUST_PROXY'] === '1';
  const app = createApp(runtime, {
    tokens,
    log,
    // The server writes the secure headers on every answer itself (see `serve` below).
    secureHeadersBy: 'host',
    requestIdBy: 'host',
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    // The socket's peer; X-Forwarded-For only behind a proxy the operator says it trusts.
    clientAddress: (c) => (trustProxy ? c.req.header('x-forwarded-for')?.split(',')[0]?.trim() : undefined) || getConnInfo(c).remote.address,
  });
  // MCP over Streamable HTTP at /mcp: the same tokens and profiles as the API.
  mountMcp(app, runtime, {
    tokens,
    log,
    clientAddress: (c) => (trustProxy ? c.req.header('x-forwarded-for')?.split(',')[0]?.trim() : undefined) || getConnInfo(c).remote.address,
  });
  // The widget bundles (when `vite build --mode widget` has run) under /widget/.
  if (existsSync('dist/widget/cugar-agent.iife.js')) app.use('/widget/*', serveStatic({ root: 'dist' }));
  // The built dashboard first (when `vite build` has run), then the plain public files.
  const staticDirs = options.staticDir ? [options.staticDir] : existsSync('dist/web/index.html') ? ['dist/web', 'public'] : ['public'];
  for (const root of staticDirs) app.use('/*', serveStatic({ root }));

  const server: ServerType = await new Promise((resolveServer, rejectServer) => {
    // Every answer carries the secure headers and a request id, written on the socket before the app answers:
    // Node merges them with the app's own, and no header object is built for them per request.
    const createServer: typeof createHttpServer = ((serverOptions: Parameters<typeof createHttpServer>[0], listener: Parameters<typeof createHttpServer>[1]) =>
      createHttpServer(serverOptions ?? {}, (request, response) => {
        for (const [name, value] of SECURE_HEADERS) response.setHeader(name, value);
        const sent = request.headers['x-request-id'];
        response.setHeader('X-Request-Id', requestIdFor(typeof sent === 'string' ? sent : undefined));
        listener?.(request, response);
      })) as typeof createHttpServer;
    const fetch = (request: Request, env: object) => app.fetch(request, env, PROCESS_LIFETIME_CONTEXT);
    const s = serve({ fetch, port, hostname, createServer }, () => resolveServer(s));
    // A port in use (or an address this machine does not have) is the user's to fix: say so plainly.
    s.once('error', (error: NodeJS.ErrnoException) => {
      void store.close();
      rejectServer(
        new CugarError(
          error.code === 'EADDRINUSE'
            ? `port ${port} on ${hostname} is in use: choose another with --port`
            : `cannot listen on ${hostname}:${port}: ${error.message}`,
          { code: error.code === 'EADDRINUSE' ? 'port_in_use' : 'cannot_listen', failureMode: 'USER', cause: error },
        ),
      );
    });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const url = `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${actualPort}`;
  log(`CUGAr API and dashboard on ${url} (data in ${databasePath === join(dataDir, 'cugar.db') ? dataDir : databasePath})`);
  if (localToken) {
    log(`local token: ${localToken}`);
    log(`dashboard: ${url}/#token=${localToken}`);
  }

  const sweeper = sweepApprovals(runtime, options.sweepIntervalMs ?? 1000, log);
  const retention = options.retentionDays ? startRetention(store, { days: options.retentionDays, log }) : undefined;
  await resumeInterrupted(runtime, log);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((done) => {
      // Stop taking requests and sweeping, let in-flight appends commit, then close the database.
      clearInterval(sweeper);
      retention?.stop();
      server.close(() => undefined);
      for (const registration of mcpServers) void registration.close();
      void nodeBrowser?.close();
      void toolSandbox.sandbox.close();
      // Spans of finished runs go out first, for at most two seconds.
      const exported = runtime.exporter ? Promise.race([runtime.exporter.flush(), new Promise((r) => setTimeout(r, 2000))]) : Promise.resolve();
      void exported.then(() => setTimeout(() => void store.close().then(done), 50));
    }));
  return { url, ...(localToken ? { localToken } : {}), runtime, close };
}
