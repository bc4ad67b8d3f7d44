import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { streamSSE } from 'hono/streaming';
import { timeout } from 'hono/timeout';
import {
  ConflictError,
  CugarError,
  GoalTextSchema,
  PlanningPreferencesSchema,
  PROFILE_NAME_PATTERN,
  canonicalJson,
  exportJournal,
  importJournal,
  parseJournal,
  redact,
  replay,
  sha256Hex,
  toCugarError,
  toOtlp,
  toTraceRecords,
  verifyJournal,
  type JournalEvent,
  type RunOutcome,
} from '../core/index.ts';
import type { Runtime } from './runtime.ts';
import { HttpError, createAuthenticator, mayUse, rateLimit, requireProfile, statusFor, type Principal, type TokenMap } from './security.ts';

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Bearer tokens and the profiles each may use. */
  tokens: TokenMap;
  /** Origins allowed by CORS (exact matches). Default none. */
  corsOrigins?: readonly string[];
  /** Largest request body in bytes, ingest excepted. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Largest ingest body in bytes. Default 12 MiB. */
  maxIngestBytes?: number;
  /** Per-request time limit in milliseconds (streams excepted). Default 30 s. */
  requestTimeoutMs?: number;
  /** Per-principal rate limit. Default 50 requests/s with bursts of 100. */
  rateLimit?: { perSecond: number; burst: number };
  now?: () => number;
}

/** Routes that need no token. Everything else does: the route-inventory test holds the app to this list. */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(['GET /v1/health', 'GET /openapi.json']);

type Env = { Variables: { principal: Principal } };

const ErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).openapi('Error');
const errors = {
  400: { description: 'Invalid request', content: { 'application/json': { schema: ErrorSchema } } },
  401: { description: 'Missing or unknown token', content: { 'application/json': { schema: ErrorSchema } } },
  403: { description: 'Token not allowed for this profile, or a policy refused', content: { 'application/json': { schema: ErrorSchema } } },
  404: { description: 'Not found', content: { 'application/json': { schema: ErrorSchema } } },
  409: { description: 'Conflicts with the current state', content: { 'application/json': { schema: ErrorSchema } } },
  429: { description: 'Rate limited; see Retry-After', content: { 'application/json': { schema: ErrorSchema } } },
} as const;
const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { 'application/json': { schema } } });
const Any = z.record(z.string(), z.unknown());

const Profile = z.string().regex(PROFILE_NAME_PATTERN, 'profile names are 1-64 letters, digits, "_" or "-", starting with a letter or digit');
const ProfileParam = z.object({ profile: Profile.openapi({ param: { name: 'profile', in: 'path' }, example: 'demo' }) });
const RunParam = z.object({ runId: z.string().min(1).max(200).openapi({ param: { name: 'runId', in: 'path' } }) });
const ApprovalParam = z.object({ approvalId: z.string().min(1).max(300).openapi({ param: { name: 'approvalId', in: 'path' } }) });

const PlanBody = z.object({ goal: GoalTextSchema, profile: Profile, preferences: PlanningPreferencesSchema.partial().optional() }).strict().openapi('PlanRequest');
const RunBody = z
  .object({
    goal: GoalTextSchema,
    profile: Profile,
    // Checked for plain JSON (finite numbers, no cycles) by the orchestrator.
    metadata: z.record(z.string(), z.unknown()).optional(),
    preferences: PlanningPreferencesSchema.partial().optional(),
    budget: z.object({ costCeiling: z.number().optional(), callCeiling: z.number().int().optional(), tokenCeiling: z.number().int().optional(), warnThreshold: z.number().optional() }).strict().optional(),
    plan: z.array(z.object({ tool: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}) })).min(1).max(10_000).optional(),
    // A run id chosen by the caller, so it can follow the run's events while the request is running.
    runId: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{7,127}$/, 'run ids are 8-128 letters, digits, "_" or "-", starting with a letter or digit')
      .optional()
      .openapi({ description: 'Run id to use (409 if it exists); cannot be combined with an Idempotency-Key', example: 'run_3f9c2a7d5e1b4c8a' }),
  })
  .strict()
  .openapi('RunRequest');
const DecisionBody = z
  .object({ decision: z.enum(['approve', 'reject', 'edit']), args: z.record(z.string(), z.unknown()).optional(), reason: z.string().max(2000).default(''), by: z.string().min(1).max(200).optional() })
  .strict()
  .openapi('ApprovalDecision');
const IngestBody = z.object({ profile: Profile, documents: z.array(z.object({ path: z.string().min(1).max(1024), text: z.string() }).strict()).min(1).max(10_000) }).strict().openapi('IngestRequest');
const QueryBody = z.object({ profile: Profile, query: z.string().min(1).max(2000), k: z.number().int().min(1).max(50).default(5), mode: z.enum(['vector', 'keyword', 'hybrid']).default('hybrid') }).strict().openapi('QueryRequest');
const FactBody = z.object({ profile: Profile, namespace: z.string(), value: z.unknown(), key: z.string().max(256).optional() }).strict().openapi('FactRequest');

function principalOf(c: Context<Env>): Principal {
  return c.get('principal');
}

/** Wrap a run outcome for the API (redacted). */
function outcomeBody(outcome: RunOutcome): Record<string, unknown> {
  return redact({ ...outcome });
}

/**
 * The CUGAr HTTP API: one Hono app, served by the Node host and the Cloudflare Worker alike.
 * The security chain runs in this order: request id → secure headers → CORS (explicit
 * origins) → body limit → timeout → per-principal rate limit → bearer auth → validation; one
 * `onError` turns every typed error into `{ "error": { "code", "message" } }` with the right status.
 */
export function createApp(runtime: Runtime, options: AppOptions): OpenAPIHono<Env> {
  const authenticate = createAuthenticator(options.tokens);
  const app = new OpenAPIHono<Env>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        return c.json({ error: { code: 'validation_failed', message: `invalid request: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'invalid'}` } }, 400);
      }
      return undefined;
    },
  });

  app.use('*', requestId());
  app.use('*', secureHeaders());
  app.use('*', cors({ origin: (origin) => (options.corsOrigins?.includes(origin) ? origin : null), allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID'], exposeHeaders: ['Retry-After', 'X-Request-Id'] }));
  const small = bodyLimit({ maxSize: options.maxBodyBytes ?? 1024 * 1024, onError: () => { throw new HttpError(413, 'body_too_large', 'the request body is too large'); } });
  const large = bodyLimit({ maxSize: options.maxIngestBytes ?? 12 * 1024 * 1024, onError: () => { throw new HttpError(413, 'body_too_large', 'the request body is too large'); } });
  app.use('*', (c, next) => (c.req.path === '/v1/ingest' ? large(c, next) : small(c, next)));
  const limit = timeout(options.requestTimeoutMs ?? 30_000, () => new HTTPException(504, { message: 'the request took too long' }));
  app.use('*', (c, next) => (c.req.header('accept')?.includes('text/event-stream') || c.req.path.endsWith('/events') ? next() : limit(c, next)));
  app.use(
    '*',
    rateLimit({
      ...(options.rateLimit ?? { perSecond: 50, burst: 100 }),
      ...(options.now ? { now: options.now } : {}),
      key: (c) => {
        const token = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
        return token ? `t:${sha256Hex(token).slice(0, 16)}` : `ip:${c.req.header('x-forwarded-for') ?? 'local'}`;
      },
    }),
  );
  app.use('*', async (c, next) => {
    // Static files (the dashboard) and the public routes need no token; everything under /v1 does.
    if (!c.req.path.startsWith('/v1/') || PUBLIC_ROUTES.has(`${c.req.method} ${c.req.path}`) || c.req.method === 'OPTIONS') return next();
    const header = c.req.header('authorization');
    const token = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
    if (!token) throw new HttpError(401, 'unauthorized', 'a bearer token is required');
    const principal = authenticate(token);
    if (!principal) throw new HttpError(401, 'unauthorized', 'the bearer token is not valid');
    c.set('principal', principal);
    await next();
  });

  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      const status = error.status;
      const code = status === 413 ? 'body_too_large' : status === 401 ? 'unauthorized' : status === 504 ? 'timeout' : 'malformed_request';
      return c.json({ error: { code, message: error.message || 'malformed request' } }, status);
    }
    const typed = error instanceof CugarError ? error : toCugarError(error);
    const status = statusFor(typed);
    // A 5xx never shows internals: the message is generic unless the error is one of ours.
    const message = status >= 500 && !(error instanceof CugarError) ? 'internal error' : redact(typed.message);
    return c.json({ error: { code: status >= 500 && !(error instanceof CugarError) ? 'internal_error' : typed.code, message } }, status);
  });
  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}` } }, 404));

  // ---- health, tools, plan

  app.openapi(createRoute({ method: 'get', path: '/v1/health', responses: { 200: json(z.object({ status: z.literal('ok'), version: z.string() }), 'The server is up') } }), (c) =>
    c.json({ status: 'ok' as const, version: '0.1.0' }, 200),
  );

  app.openapi(createRoute({ method: 'get', path: '/v1/profiles/{profile}/tools', request: { params: ProfileParam }, responses: { 200: json(z.object({ tools: z.array(Any) }), 'Tools with their JSON Schemas'), ...errors } }), (c) => {
    const { profile } = c.req.valid('param');
    requireProfile(c, profile);
    return c.json({ tools: runtime.registry.list(profile) as unknown as Array<Record<string, unknown>> }, 200);
  });

  app.openapi(createRoute({ method: 'get', path: '/v1/profiles/{profile}/budget', request: { params: ProfileParam }, responses: { 200: json(Any, "The profile's shared ceilings (if any) and what its runs have spent"), ...errors } }), async (c) => {
    const { profile } = c.req.valid('param');
    requireProfile(c, profile);
    return c.json((await runtime.orchestrator.profileBudget(profile)) as unknown as Record<string, unknown>, 200);
  });

  app.openapi(createRoute({ method: 'post', path: '/v1/plan', request: { body: body(PlanBody) }, responses: { 200: json(Any, 'A dry-run plan with every candidate and its scores'), ...errors } }), (c) => {
    const { goal, profile, preferences } = c.req.valid('json');
    requireProfile(c, profile);
    const registry = runtime.registry.sandbox(profile);
    const plan = runtime.planner.plan({ goal, profile, registry, traceId: 'dry-run', runId: 'dry-run', ...(preferences ? { preferences } : {}) });
    return c.json(plan as unknown as Record<string, unknown>, 200);
  });

  // ---- runs

  const inflight = new Map<string, Promise<{ created: boolean; outcome: RunOutcome }>>();
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/runs',
      request: { body: body(RunBody), headers: z.object({ 'idempotency-key': z.string().min(1).max(200).optional() }) },
      responses: { 200: json(Any, 'The run, completed, failed or paused for approval'), ...errors, 422: { description: 'Idempotency-Key reused with a different body', content: { 'application/json': { schema: ErrorSchema } } } },
    }),
    async (c) => {
      const request = c.req.valid('json');
      requireProfile(c, request.profile);
      const key = c.req.header('idempotency-key');
      if (key && request.runId) throw new HttpError(400, 'validation_failed', 'invalid request: runId: cannot be combined with an Idempotency-Key (the key decides the run id)');
      if (!key) return c.json(outcomeBody(await runtime.orchestrator.start(request.goal, request.profile, request)), 200);
      // One run per (principal, key): the run id is derived from both, so duplicates find it even after a restart.
      const principal = principalOf(c);
      const runId = `run_${sha256Hex(`${principal.id}:${key}`).slice(0, 32)}`;
      const bodyHash = sha256Hex(canonicalJson(request));
      // Duplicates that arrive together share one promise, taken before any await.
      let pending = inflight.get(runId);
      const first = !pending;
      if (!pending) {
        pending = (async () => {
          if (await runtime.store.getRun(runId)) return { created: false, outcome: await runtime.orchestrator.getRun(runId) };
          try {
            return { created: true, outcome: await runtime.orchestrator.start(request.goal, request.profile, { ...request, runId, metadata: { ...(request.metadata ?? {}), idempotencyBodyHash: bodyHash } }) };
          } catch (error) {
            if (error instanceof ConflictError && error.code === 'run_exists') return { created: false, outcome: await runtime.orchestrator.getRun(runId) };
            throw error;
          }
        })();
        inflight.set(runId, pending);
        void pending.finally(() => inflight.delete(runId)).catch(() => undefined);
      }
      const { created, outcome } = await pending;
      if (!(first && created)) {
        const [initial] = await runtime.store.readJournal(runId, 0);
        const recorded = initial?.data['inputs'] as { metadata?: Record<string, unknown> } | undefined;
        if (recorded?.metadata?.['idempotencyBodyHash'] !== bodyHash) throw new HttpError(422, 'idempotency_mismatch', 'this Idempotency-Key was used with a different body');
      }
      return c.json(outcomeBody(outcome), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/runs',
      request: {
        query: z.object({
          status: z.enum(['running', 'paused', 'completed', 'failed', 'cancelled']).optional(),
          profile: Profile.optional(),
          tool: z.string().min(1).max(200).optional().openapi({ description: 'Only runs whose plans call this tool' }),
          since: z.coerce.number().int().min(0).optional().openapi({ description: 'Only runs created at or after this time (ms since the epoch)' }),
          until: z.coerce.number().int().min(0).optional().openapi({ description: 'Only runs created before this time (ms since the epoch)' }),
          limit: z.coerce.number().int().min(1).max(1000).default(100),
        }),
      },
      responses: { 200: json(z.object({ runs: z.array(Any) }), 'Runs, newest first'), ...errors },
    }),
    async (c) => {
      const { status, profile, tool, since, until, limit } = c.req.valid('query');
      if (profile) requireProfile(c, profile);
      const principal = principalOf(c);
      const runs = (await runtime.store.listRuns({ ...(status ? { status } : {}), ...(profile ? { profile } : {}) }))
        .filter((r) => mayUse(principal, r.profile) && (!tool || (r.tools ?? []).includes(tool)) && (since === undefined || r.createdAt >= since) && (until === undefined || r.createdAt < until))
        .slice(0, limit);
      return c.json({ runs: redact(runs) as unknown as Array<Record<string, unknown>> }, 200);
    },
  );

  const loadRun = async (c: Context<Env>, runId: string) => {
    const summary = await runtime.store.getRun(runId);
    if (!summary) throw new HttpError(404, 'unknown_run', `no run ${runId}`);
    requireProfile(c, summary.profile);
    return summary;
  };

  app.openapi(createRoute({ method: 'get', path: '/v1/runs/{runId}', request: { params: RunParam }, responses: { 200: json(Any, 'The run as its journal stands'), ...errors } }), async (c) => {
    const { runId } = c.req.valid('param');
    await loadRun(c, runId);
    return c.json(outcomeBody(await runtime.orchestrator.getRun(runId)), 200);
  });

  app.openapi(createRoute({ method: 'get', path: '/v1/runs/{runId}/journal', request: { params: RunParam, query: z.object({ format: z.enum(['json', 'ndjson']).default('json') }) }, responses: { 200: json(Any, 'The hash-chained journal'), ...errors } }), async (c) => {
    const { runId } = c.req.valid('param');
    await loadRun(c, runId);
    const journal = await runtime.store.readJournal(runId);
    if (c.req.valid('query').format === 'ndjson') return c.body(exportJournal(journal), 200, { 'content-type': 'application/x-ndjson' }) as never;
    return c.json({ events: journal as unknown as Array<Record<string, unknown>> }, 200);
  });

  app.openapi(createRoute({ method: 'get', path: '/v1/runs/{runId}/trace', request: { params: RunParam }, responses: { 200: json(Any, 'Trace records with timestamps and durations'), ...errors } }), async (c) => {
    const { runId } = c.req.valid('param');
    await loadRun(c, runId);
    return c.json({ records: redact(toTraceRecords(await runtime.store.readJournal(runId))) as unknown as Array<Record<string, unknown>> }, 200);
  });

  app.openapi(createRoute({ method: 'get', path: '/v1/runs/{runId}/otlp', request: { params: RunParam }, responses: { 200: json(Any, 'OTLP/HTTP JSON following the GenAI conventions'), ...errors } }), async (c) => {
    const { runId } = c.req.valid('param');
    await loadRun(c, runId);
    return c.json(redact(toOtlp(await runtime.store.readJournal(runId))) as unknown as Record<string, unknown>, 200);
  });

  app.openapi(createRoute({ method: 'post', path: '/v1/runs/{runId}/resume', request: { params: RunParam }, responses: { 200: json(Any, 'The resumed run'), ...errors } }), async (c) => {
    const { runId } = c.req.valid('param');
    await loadRun(c, runId);
    return c.json(outcomeBody(await runtime.orchestrator.resume(runId)), 200);
  });

  app.openapi(createRoute({ method: 'post', path: '/v1/runs/{runId}/cancel', request: { params: RunParam }, responses: { 200: json(Any, 'The cancelled run'), ...errors } }), async (c) => {
    const { runId } = c.req.valid('param');
    await loadRun(c, runId);
    return c.json(outcomeBody(await runtime.orchestrator.cancel(runId, 'cancelled through the API')), 200);
  });

  app.get('/v1/runs/:runId/events', async (c) => {
    const runId = c.req.param('runId');
    await loadRun(c, runId);
    const lastId = Number(c.req.header('last-event-id') ?? c.req.query('lastEventId') ?? -1);
    const after = Number.isInteger(lastId) ? lastId : -1;
    return streamSSE(c, async (stream) => {
      const queue: JournalEvent[] = [];
      let wake: (() => void) | undefined;
      const unsubscribe = runtime.orchestrator.subscribe((event) => {
        if (event.runId !== runId) return;
        queue.push(event);
        wake?.();
      });
      stream.onAbort(unsubscribe);
      let sent = after;
      const send = async (event: JournalEvent) => {
        if (event.seq <= sent) return;
        sent = event.seq;
        await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(redact(event)) });
      };
      try {
        // What the client missed, from the journal, then live events as they are appended.
        for (const event of await runtime.store.readJournal(runId, after + 1)) await send(event);
        const finished = async () => {
          const run = await runtime.store.getRun(runId);
          return !run || run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled';
        };
        while (!stream.aborted && !(queue.length === 0 && (await finished()))) {
          if (queue.length === 0) await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, 1000)));
          wake = undefined;
          while (queue.length) await send(queue.shift()!);
          // Events appended by another process or isolate reach this stream through the store.
          for (const event of await runtime.store.readJournal(runId, sent + 1)) await send(event);
        }
        for (const event of await runtime.store.readJournal(runId, sent + 1)) await send(event);
      } finally {
        unsubscribe();
      }
    });
  });

  // ---- approvals

  app.openapi(createRoute({ method: 'get', path: '/v1/approvals', request: { query: z.object({ status: z.enum(['pending', 'approved', 'rejected', 'timed_out']).optional(), profile: Profile.optional() }) }, responses: { 200: json(z.object({ approvals: z.array(Any) }), 'Approvals, oldest first'), ...errors } }), async (c) => {
    const { status, profile } = c.req.valid('query');
    if (profile) requireProfile(c, profile);
    const principal = principalOf(c);
    const approvals = (await runtime.orchestrator.listApprovals({ ...(status ? { status } : {}), ...(profile ? { profile } : {}) })).filter((a) => mayUse(principal, a.profile));
    return c.json({ approvals: redact(approvals) as unknown as Array<Record<string, unknown>> }, 200);
  });

  app.openapi(createRoute({ method: 'post', path: '/v1/approvals/{approvalId}', request: { params: ApprovalParam, body: body(DecisionBody) }, responses: { 200: json(Any, 'The run after the decision'), ...errors } }), async (c) => {
    const { approvalId } = c.req.valid('param');
    const decision = c.req.valid('json');
    const approval = await runtime.store.getApproval(approvalId);
    if (!approval) throw new HttpError(404, 'unknown_approval', `no approval ${approvalId}`);
    requireProfile(c, approval.profile);
    const outcome = await runtime.orchestrator.resolveApproval(approvalId, { ...decision, by: decision.by ?? `token:${principalOf(c).id}` });
    return c.json(outcomeBody(outcome), 200);
  });

  // ---- memory and RAG

  app.openapi(createRoute({ method: 'post', path: '/v1/ingest', request: { body: body(IngestBody) }, responses: { 200: json(Any, 'What was ingested (or progress events, with Accept: text/event-stream)'), ...errors } }), async (c) => {
    const { profile, documents } = c.req.valid('json');
    requireProfile(c, profile);
    if (c.req.header('accept')?.includes('text/event-stream')) {
      return streamSSE(c, async (stream) => {
        try {
          const report = await runtime.loader.ingest(profile, documents, { onProgress: (p) => void stream.writeSSE({ event: 'progress', data: JSON.stringify(p) }) });
          await stream.writeSSE({ event: 'done', data: JSON.stringify(report) });
        } catch (error) {
          const typed = toCugarError(error);
          await stream.writeSSE({ event: 'error', data: JSON.stringify({ error: { code: typed.code, message: typed.message } }) });
        }
      }) as never;
    }
    return c.json((await runtime.loader.ingest(profile, documents)) as unknown as Record<string, unknown>, 200);
  });

  app.openapi(createRoute({ method: 'post', path: '/v1/query', request: { body: body(QueryBody) }, responses: { 200: json(z.object({ hits: z.array(Any) }), 'Scored passages'), ...errors } }), async (c) => {
    const { profile, query, k, mode } = c.req.valid('json');
    requireProfile(c, profile);
    return c.json({ hits: (await runtime.retriever.search(profile, query, { k, mode })) as unknown as Array<Record<string, unknown>> }, 200);
  });

  app.openapi(createRoute({ method: 'get', path: '/v1/memory/facts', request: { query: z.object({ profile: Profile, namespace: z.string().optional(), limit: z.coerce.number().int().min(1).max(1000).default(50) }) }, responses: { 200: json(z.object({ facts: z.array(Any), namespaces: z.array(z.string()) }), 'Facts, newest first'), ...errors } }), async (c) => {
    const { profile, namespace, limit } = c.req.valid('query');
    requireProfile(c, profile);
    const facts = namespace ? await runtime.memory.query(profile, namespace, { limit }) : await runtime.memory.recallRecent(profile, { limit });
    return c.json({ facts: redact(facts) as unknown as Array<Record<string, unknown>>, namespaces: await runtime.memory.namespaces(profile) }, 200);
  });

  app.openapi(createRoute({ method: 'post', path: '/v1/memory/facts', request: { body: body(FactBody) }, responses: { 200: json(Any, 'The stored fact'), ...errors } }), async (c) => {
    const { profile, namespace, value, key } = c.req.valid('json');
    requireProfile(c, profile);
    return c.json((await runtime.memory.storeFact(profile, namespace, value as never, key === undefined ? {} : { key })) as unknown as Record<string, unknown>, 200);
  });

  // ---- audit

  app.openapi(createRoute({ method: 'get', path: '/v1/audit/runs/{runId}', request: { params: RunParam }, responses: { 200: json(Any, 'Chain verification of one run against its recorded head'), ...errors } }), async (c) => {
    const { runId } = c.req.valid('param');
    const summary = await loadRun(c, runId);
    return c.json({ runId, ...verifyJournal(await runtime.store.readJournal(runId), summary.head) } as Record<string, unknown>, 200);
  });

  app.openapi(createRoute({ method: 'get', path: '/v1/audit', responses: { 200: json(Any, 'Chain verification of every run the token may see'), ...errors } }), async (c) => {
    const principal = principalOf(c);
    const results = [];
    for (const run of (await runtime.store.listRuns()).filter((r) => mayUse(principal, r.profile))) {
      const result = verifyJournal(await runtime.store.readJournal(run.runId), run.head);
      results.push({ runId: run.runId, ok: result.ok, ...(result.ok ? {} : { seq: result.seq, reason: result.reason }) });
    }
    return c.json({ ok: results.every((r) => r.ok), runs: results }, 200);
  });

  const JournalBody = z.object({ journal: z.string().min(1).max(50 * 1024 * 1024) }).strict().openapi('JournalUpload');

  app.openapi(createRoute({ method: 'post', path: '/v1/audit/journal', request: { body: body(JournalBody) }, responses: { 200: json(Any, 'Verification of an uploaded journal (NDJSON or a JSON array)'), ...errors } }), (c) => {
    const events = parseJournal(c.req.valid('json').journal);
    const result = verifyJournal(events);
    return c.json({ runId: events[0]?.runId ?? null, ...result } as Record<string, unknown>, 200);
  });

  app.openapi(
    createRoute({ method: 'post', path: '/v1/journals', request: { body: body(JournalBody) }, responses: { 200: json(z.object({ runId: z.string(), events: z.number() }), 'The imported run: its chain verified and its journal stored as it was'), ...errors } }),
    async (c) => {
      const events = parseJournal(c.req.valid('json').journal);
      const profile = (events[0]?.data['inputs'] as { profile?: string } | undefined)?.profile;
      if (!profile) throw new HttpError(400, 'invalid_journal', 'the journal does not start with a run');
      requireProfile(c, profile);
      return c.json(await importJournal(runtime.store, events), 200);
    },
  );

  app.openapi(createRoute({ method: 'post', path: '/v1/replay', request: { body: body(JournalBody) }, responses: { 200: json(Any, 'Replay of an uploaded journal against recorded results: identical, or the first divergence'), ...errors } }), async (c) => {
    const events = parseJournal(c.req.valid('json').journal);
    const profile = (events[0]?.data['inputs'] as { profile?: string } | undefined)?.profile;
    if (!profile) throw new HttpError(400, 'invalid_journal', 'the journal does not start with a run');
    requireProfile(c, profile);
    return c.json(redact(await replay(events, runtime.registry)) as unknown as Record<string, unknown>, 200);
  });

  app.doc31('/openapi.json', { openapi: '3.1.0', info: { title: 'CUGAr API', version: '0.1.0', description: 'Offline-first, deterministic agent orchestration: runs, approvals, journals, memory and RAG.' } });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  return app;
}
