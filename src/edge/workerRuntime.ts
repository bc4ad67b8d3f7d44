import type { Context } from 'hono';
import { envSecrets, fetchTransport, parseConfig, redactText, registerSecretValues, webSettingsFromEnv } from '../core/index.ts';
import { createHeadSigner } from '../core/signing.ts';
import { createApp } from '../api/app.ts';
import { babelParser } from '../api/codeParser.ts';
import { parseApprovalPolicy } from '../api/approvalSettings.ts';
import { hostModels } from '../api/models.ts';
import { otlpSettingsFromEnv } from '../api/otlpExport.ts';
import { createRuntime, type Runtime } from '../api/runtime.ts';
import { parseTokenMap } from '../api/tokens.ts';
import { connectMcpServers, mcpPolicyEnforcer, mcpSettingsFromEnv } from '../mcp/hostSetup.ts';
import { mountMcp } from '../mcp/httpRoute.ts';
import { DurableObjectStore, staleRunMs, type DurableObjectBindings } from './durableObjectStore.ts';
import { registerHostWebTools } from './webToolsSetup.ts';

/** The Worker's bindings (see wrangler.jsonc). */
export interface Env extends DurableObjectBindings {
  /** `token=profile1,profile2;other=*`; without tokens every /v1 request is refused. */
  CUGAR_TOKENS?: string;
  CUGAR_CORS_ORIGINS?: string;
  /** How long an approval waits before its timeout policy decides, in milliseconds; unset waits forever. */
  CUGAR_APPROVAL_TIMEOUT_MS?: string;
  /** `reject` (default) or `approve`. */
  CUGAR_APPROVAL_ON_TIMEOUT?: string;
  /** The Ed25519 key (64 hex characters) that signs run heads; unset leaves them unsigned. */
  CUGAR_SIGNING_KEY?: string;
  /** Base URL of an OpenAI-compatible API; with `CUGAR_MODEL`, runs are agent runs. */
  CUGAR_MODEL_URL?: string;
  /** Model ids, comma-separated in fallback order. */
  CUGAR_MODEL?: string;
  /** The API key: a Worker secret (`wrangler secret put CUGAR_MODEL_KEY`). */
  CUGAR_MODEL_KEY?: string;
  CUGAR_MODEL_STREAM?: string;
  CUGAR_MODEL_TIMEOUT_MS?: string;
  CUGAR_MODEL_PRICES?: string;
  MODEL_TEMPERATURE?: string;
  MODEL_MAX_OUTPUT_TOKENS?: string;
  MAX_LLM_CALLS?: string;
  /** Live OpenTelemetry export (OTLP/HTTP JSON): the collector's base URL, or the traces URL itself. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  /** `key=value,…` sent with every export: a Worker secret when it holds a backend's API key. */
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  OTEL_SERVICE_NAME?: string;
  /** MCP servers whose tools join profiles (JSON list); a Worker reaches Streamable HTTP servers only. */
  CUGAR_MCP_SERVERS?: string;
  /** What each profile allows of MCP, e.g. `{"ops":{"network":true}}`. */
  CUGAR_MCP_ALLOW?: string;
  /** A SearXNG instance `web_search` may query in profiles that allow the network. */
  CUGAR_SEARXNG_URL?: string;
  /** Hosts and CIDR ranges `internet_extract` may reach although private, comma-separated. */
  CUGAR_NET_ALLOW?: string;
  CUGAR_FETCH_TIMEOUT_MS?: string;
  CUGAR_FETCH_MAX_BYTES?: string;
}

/** The model settings among a Worker's vars and secrets. */
function modelEnv(env: Env): Record<string, string | undefined> {
  const { CUGAR_MODEL_URL, CUGAR_MODEL, CUGAR_MODEL_KEY, CUGAR_MODEL_STREAM, CUGAR_MODEL_TIMEOUT_MS, CUGAR_MODEL_PRICES } = env;
  return { CUGAR_MODEL_URL, CUGAR_MODEL, CUGAR_MODEL_KEY, CUGAR_MODEL_STREAM, CUGAR_MODEL_TIMEOUT_MS, CUGAR_MODEL_PRICES };
}

let runtime: Promise<Runtime> | undefined;
let app: Promise<ReturnType<typeof createApp>> | undefined;

/** This isolate's runtime over the Durable Objects: built once, shared by requests and alarms. */
export function workerRuntime(env: Env): Promise<Runtime> {
  runtime ??= (async () => {
    const approval = parseApprovalPolicy({
      CUGAR_APPROVAL_TIMEOUT_MS: env.CUGAR_APPROVAL_TIMEOUT_MS,
      CUGAR_APPROVAL_ON_TIMEOUT: env.CUGAR_APPROVAL_ON_TIMEOUT,
    });
    // The head-signing key is a Worker secret (`wrangler secret put CUGAR_SIGNING_KEY`): outside
    // the Durable Objects whose contents it attests.
    const signer = env.CUGAR_SIGNING_KEY ? createHeadSigner(env.CUGAR_SIGNING_KEY) : undefined;
    // Tool credentials are Worker secrets too (`wrangler secret put CUGAR_SECRET_<NAME>`); they,
    // the signing key and the API tokens are redacted on every channel.
    registerSecretValues([...(env.CUGAR_SIGNING_KEY ? [env.CUGAR_SIGNING_KEY] : []), ...Object.keys(parseTokenMap(env.CUGAR_TOKENS))]);
    const config = parseConfig({
      MODEL_TEMPERATURE: env.MODEL_TEMPERATURE,
      MODEL_MAX_OUTPUT_TOKENS: env.MODEL_MAX_OUTPUT_TOKENS,
      MAX_LLM_CALLS: env.MAX_LLM_CALLS,
    }).config;
    const models = hostModels(modelEnv(env), config);
    // Spans go out as runs finish; each run's `waitUntil` waits for them (runs.ts), so the isolate outlives the export.
    const otlp = otlpSettingsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
      OTEL_EXPORTER_OTLP_HEADERS: env.OTEL_EXPORTER_OTLP_HEADERS,
      OTEL_SERVICE_NAME: env.OTEL_SERVICE_NAME,
    });
    if (otlp) registerSecretValues(Object.values(otlp.headers));
    const mcp = mcpSettingsFromEnv({ CUGAR_MCP_SERVERS: env.CUGAR_MCP_SERVERS, CUGAR_MCP_ALLOW: env.CUGAR_MCP_ALLOW });
    const secrets = envSecrets(env as unknown as Record<string, unknown>);
    const built = await createRuntime(new DurableObjectStore(env), config, {
      codeParser: babelParser,
      ...(models ? { models } : {}),
      ...(otlp ? { otlp } : {}),
      secrets,
      policy: mcpPolicyEnforcer(mcp.allow),
      ...(approval ? { approval } : {}),
      ...(signer ? { signer } : {}),
    });
    // A Worker cannot resolve names or pin addresses: its web tools get the URL checks and re-checked redirects only.
    registerHostWebTools(
      built,
      () => fetchTransport(),
      webSettingsFromEnv({
        CUGAR_SEARXNG_URL: env.CUGAR_SEARXNG_URL,
        CUGAR_NET_ALLOW: env.CUGAR_NET_ALLOW,
        CUGAR_FETCH_TIMEOUT_MS: env.CUGAR_FETCH_TIMEOUT_MS,
        CUGAR_FETCH_MAX_BYTES: env.CUGAR_FETCH_MAX_BYTES,
      }),
    );
    // MCP servers' tools join their profiles; a stdio server cannot start here and is logged and left out.
    await connectMcpServers(built.registry, mcp, { secrets, log: (line) => console.error(redactText(line)) });
    return built;
  })();
  return runtime;
}

/** This isolate's Hono app: the same app as the Node host's. */
export function workerApp(env: Env): Promise<ReturnType<typeof createApp>> {
  app ??= (async () => {
    const corsOrigins = (env.CUGAR_CORS_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    // Cloudflare's edge sets cf-connecting-ip itself; a client cannot choose it.
    const runtime = await workerRuntime(env);
    const tokens = parseTokenMap(env.CUGAR_TOKENS);
    const clientAddress = (c: Context) => c.req.header('cf-connecting-ip');
    const served = createApp(runtime, { tokens, corsOrigins, clientAddress });
    // MCP over Streamable HTTP at /mcp, stateless (any isolate answers any request), with the API's tokens.
    mountMcp(served, runtime, { tokens, clientAddress });
    return served;
  })();
  return app;
}

/**
 * Run what time makes due, on the directory object's alarm: expired approvals get their
 * timeout policy, and running runs whose last event is older than {@link staleRunMs} are
 * resumed from their journals (a Worker's isolate may stop driving a run once its `waitUntil`
 * budget is spent). Returns when the alarm should fire next, if anything is still waiting.
 */
export async function driveTime(env: Env): Promise<number | undefined> {
  const { orchestrator, store, exporter } = await workerRuntime(env);
  await orchestrator.sweepApprovals();
  const stale = staleRunMs(env);
  for (const run of await store.listRuns({ status: 'running' })) {
    if (Date.now() - run.updatedAt < stale) continue;
    // Another driver may still be alive: the journal's head check lets only one of them append.
    await orchestrator
      .resume(run.runId)
      .catch((error: unknown) => console.error(`resuming ${run.runId}: ${redactText(error instanceof Error ? error.message : String(error))}`));
  }
  // Spans of what this alarm decided go out before the alarm returns and the isolate may stop.
  await exporter?.flush();
  const now = Date.now();
  const waiting = [
    ...(await store.listApprovals({ status: 'pending' })).flatMap((a) => (a.deadline !== undefined && a.deadline > now ? [a.deadline] : [])),
    ...(await store.listRuns({ status: 'running' })).map((run) => Math.max(now + 1, run.updatedAt + stale)),
  ];
  return waiting.length ? Math.min(...waiting) : undefined;
}
