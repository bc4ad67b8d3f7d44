import { redactText } from '../core/index.ts';
import { createRouter, errorBody, respondToError } from './errors.ts';
import { PUBLIC_ROUTES, installSecurityChain, type SecurityOptions } from './middleware.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { auditRoutes } from './routes/audit.ts';
import { feedbackRoutes } from './routes/feedback.ts';
import { statsRoutes } from './routes/stats.ts';
import { forkRoutes } from './routes/forks.ts';
import { healthRoutes } from './routes/health.ts';
import { keyRoutes } from './routes/keys.ts';
import { memoryRoutes } from './routes/memory.ts';
import { planRoutes } from './routes/plan.ts';
import { profileRoutes } from './routes/profiles.ts';
import { runEventRoutes } from './routes/runEvents.ts';
import { runRoutes } from './routes/runs.ts';
import { toolVersionRoutes } from './routes/toolVersions.ts';
import { createRunStarter } from './runStarter.ts';
import type { Runtime } from './runtime.ts';

export { PUBLIC_ROUTES };

/** Options of {@link createApp}: the security chain's, and where background failures go. */
export interface AppOptions extends SecurityOptions {
  /** Where failures of runs that outlived their request are reported. Default `console.error`. */
  log?: (line: string) => void;
}

/** Longest `Prefer: wait` honoured, in seconds: below the default request timeout. */
export const MAX_WAIT_SECONDS = 25;

/**
 * The CUGAr HTTP API: one Hono app, served by the Node host, the Cloudflare Worker and, in
 * local mode, the browser tab alike. The security chain runs in this order: request id →
 * secure headers → CORS (explicit origins) → body limit → timeout → per-principal rate
 * limit → bearer auth → validation; one `onError` turns every typed error into
 * `{ "error": { "code", "message" } }` with the status its class calls for.
 *
 * `POST /v1/runs` answers `202 Accepted` as soon as the run is durable; the run goes on in
 * the background, kept alive by the host (`executionCtx.waitUntil` on a Worker).
 *
 * @example
 * const app = createApp(await createRuntime(store, config), { tokens: { [token]: '*' } });
 * const accepted = await app.request('/v1/runs', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ goal: 'add 2 and 3', profile: 'demo' }) });
 */
export function createApp(runtime: Runtime, options: AppOptions) {
  // Every log line is redacted here, once: routes log what they like, nothing secret reaches the sink.
  const sink = options.log ?? ((line: string) => console.error(line));
  const log = (line: string) => sink(redactText(line));
  const app = createRouter();
  installSecurityChain(app, options);
  app.onError(respondToError);
  // The path is decoded before it is echoed, so an encoded secret in it is redacted like any other.
  app.notFound((c) => c.json(errorBody('not_found', `no route ${c.req.method} ${decodedPath(c.req.path)}`), 404));

  const timeoutSeconds = Math.floor((options.requestTimeoutMs ?? 30_000) / 1000) - 1;

  const routes = app
    .route('/', healthRoutes())
    .route('/', keyRoutes(runtime))
    .route('/', profileRoutes(runtime))
    .route('/', planRoutes(runtime))
    .route('/', runRoutes(runtime, createRunStarter(runtime), { maxWaitSeconds: Math.max(0, Math.min(MAX_WAIT_SECONDS, timeoutSeconds)), log }))
    .route('/', runEventRoutes(runtime))
    .route('/', forkRoutes(runtime))
    .route('/', feedbackRoutes(runtime))
    .route('/', statsRoutes(runtime))
    .route('/', approvalRoutes(runtime))
    .route('/', memoryRoutes(runtime))
    .route('/', auditRoutes(runtime))
    .route('/', toolVersionRoutes(runtime));

  routes.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'CUGAr API', version: '0.1.0', description: 'Offline-first, deterministic agent orchestration: runs, approvals, journals, memory and RAG.' },
  });
  routes.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  return routes;
}

/** `path` percent-decoded where it decodes, as given where it does not. */
function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The app's type, for the typed client (`hc<AppType>`): every route with its request and response schemas. */
export type AppType = ReturnType<typeof createApp>;
