import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { timeout } from 'hono/timeout';
import { HttpError, errorBody } from './errors.ts';
import { Buckets, createAuthenticator, rateLimit, spend, type ApiEnv, type TokenMap } from './security.ts';

/** Routes that need no token. Everything else does: the route-inventory test holds the app to this list. */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(['GET /v1/health', 'GET /v1/keys', 'GET /openapi.json']);

/** Options of the security chain. */
export interface SecurityOptions {
  /** Bearer tokens and the profiles each may use. */
  tokens: TokenMap;
  /** Origins allowed by CORS (exact matches). Default none. */
  corsOrigins?: readonly string[];
  /** Largest request body in bytes, ingest excepted. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Largest ingest body in bytes. Default 12 MiB. */
  maxIngestBytes?: number;
  /**
   * Largest body of the routes that take a whole journal (import, verify, replay), in bytes.
   * Default 64 MiB: what `GET /v1/runs/{id}/journal` exports (up to the 50 MiB the schema
   * allows) must come back, escaped inside a JSON string.
   */
  maxJournalBytes?: number;
  /** Per-request time limit in milliseconds (streams excepted). Default 30 s. */
  requestTimeoutMs?: number;
  /** Per-client rate limit: by token for a valid token, by address otherwise. Default 50 requests/s with bursts of 100. */
  rateLimit?: { perSecond: number; burst: number };
  /**
   * Failed authentications allowed per client address (and ten times that for all addresses
   * together), before every further attempt answers 429. Default 1/s with bursts of 30.
   */
  authFailureLimit?: { perSecond: number; burst: number };
  /**
   * The caller's address as the host knows it (the socket's peer on Node, the edge's
   * `cf-connecting-ip` on Cloudflare); never a header the client chose unless the host trusts
   * its proxy. Default: every caller counts as one.
   */
  clientAddress?: (c: Context) => string | undefined;
  now?: () => number;
  /**
   * Who sets the secure headers ({@link SECURE_HEADERS}) on every answer: Hono's `secureHeaders()`
   * middleware (the default), or the host, which writes them on its sockets before the app
   * answers (the Node host: no header object is built per request, so answers stay on the
   * server's fast path). A host that says so must set them on every response.
   */
  secureHeadersBy?: 'middleware' | 'host';
  /**
   * Who sets `X-Request-Id` on every answer: Hono's `requestId()` middleware (the default), or the
   * host, which writes it on its sockets with {@link requestIdFor} (a valid id the client sent,
   * else a new UUID): then no header object is built per request, and an answer with no other
   * header of its own (health) stays on the server's fast path.
   */
  requestIdBy?: 'middleware' | 'host';
}

/**
 * The request id of an answer, as Hono's `requestId()` chooses it: the client's `X-Request-Id`
 * when it is at most 255 word characters, `-` or `=`, else a new UUID.
 */
export function requestIdFor(sent: string | undefined): string {
  return sent && sent.length <= 255 && !/[^\w\-=]/.test(sent) ? sent : crypto.randomUUID();
}

/**
 * The headers Hono's `secureHeaders()` sets with its defaults (checked equal by a test), for a
 * host that writes them itself.
 */
export const SECURE_HEADERS: ReadonlyArray<readonly [string, string]> = Object.freeze([
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
] as const);

const tooLarge = () => {
  throw new HttpError(413, 'body_too_large', 'the request body is too large');
};

/**
 * Hono's body limit of `maxSize` bytes, for bodies of unknown length (chunked). A body that
 * declares its length is judged by that header alone, as Hono's limit judges it too, but without
 * touching the body first: on Node, merely looking at it builds a whole web Request and streams
 * the body through it, where the route would otherwise read it straight from the socket. The
 * server reads no more than the declared length (Node's parser holds a request to it).
 */
function limitBody(maxSize: number): MiddlewareHandler {
  const streamed = bodyLimit({ maxSize, onError: tooLarge });
  return (c, next) => {
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return streamed(c, next);
    return Number.parseInt(declared, 10) > maxSize ? tooLarge() : next();
  };
}

/** Routes whose body is a whole journal: they take the larger journal body limit. */
const JOURNAL_ROUTES: ReadonlySet<string> = new Set(['/v1/journals', '/v1/audit/journal', '/v1/replay']);

/** Methods whose requests carry a body. */
const HAS_BODY: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Deepest JSON a request body may nest (objects and arrays); journal data has no reason to go deeper. */
export const MAX_JSON_DEPTH = 64;

/**
 * How deeply `value` nests, counted without recursion (a hostile body must not exhaust the
 * stack). With `stopAbove`, counting stops once that depth is passed: enough to refuse.
 */
export function jsonDepth(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > deepest) deepest = depth;
    if (depth > stopAbove) break;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Requests that stream for as long as a run lives are exempt from the request timeout. */
const isStream = (c: Context) => c.req.header('accept')?.includes('text/event-stream') === true || c.req.path.endsWith('/events');

/** Public routes and CORS preflights pass without a token. */
const isPublic = (c: Context) => c.req.method === 'OPTIONS' || PUBLIC_ROUTES.has(`${c.req.method} ${c.req.path}`);

/**
 * Install the security chain on `app`, in this order: request id → secure headers → CORS
 * (explicit origins only) → body limit → nesting limit → timeout → per-principal rate limit →
 * bearer auth.
 * Validation follows, per route. Static files outside `/v1` need no token.
 */
export function installSecurityChain(app: OpenAPIHono<ApiEnv>, options: SecurityOptions): void {
  const authenticate = createAuthenticator(options.tokens);
  if (options.requestIdBy !== 'host') app.use('*', requestId());
  if (options.secureHeadersBy !== 'host') app.use('*', secureHeaders());
  const corsHeaders = cors({
    origin: (origin) => (options.corsOrigins?.includes(origin) ? origin : null),
    // The MCP headers let a browser MCP client on an allowed origin reach /mcp.
    allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID', 'Prefer', 'Mcp-Protocol-Version', 'Mcp-Session-Id'],
    exposeHeaders: ['Retry-After', 'X-Request-Id', 'Location', 'Preference-Applied', 'Mcp-Session-Id'],
  });
  // CORS concerns only requests that carry an Origin (browsers, cross-origin). Skipping it for
  // the rest (the CLI, SDKs, curl, health checks) keeps their responses on the server's fast
  // path: headers set around the handler make Node's adapter re-wrap every response.
  app.use('*', (c, next) => (c.req.header('origin') === undefined ? next() : corsHeaders(c, next)));
  const small = limitBody(options.maxBodyBytes ?? 1024 * 1024);
  const large = limitBody(options.maxIngestBytes ?? 12 * 1024 * 1024);
  const journal = limitBody(options.maxJournalBytes ?? 64 * 1024 * 1024);
  // Only requests that can carry a body are measured: the limit reads the body as a stream,
  // which for a GET would build a whole Request for nothing.
  app.use('*', (c, next) =>
    !HAS_BODY.has(c.req.method) ? next() : c.req.path === '/v1/ingest' ? large(c, next) : JOURNAL_ROUTES.has(c.req.path) ? journal(c, next) : small(c, next),
  );
  // Bound nesting before any schema walks the body: thousands of levels would exhaust the stack
  // of every recursive reader after it (zod, canonical JSON, the journal's views).
  app.use('/v1/*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.header('content-type')?.includes('application/json')) {
      // Hono keeps the parsed body, so the route's validator reads it again at no cost; a
      // malformed body is left to that validator's clear 400.
      const body: unknown = await c.req.json().catch(() => undefined);
      if (jsonDepth(body) > MAX_JSON_DEPTH) throw new HttpError(400, 'too_deep', `the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    return next();
  });
  // A plain condition rather than `hono/combine`'s `except`, which composes its middleware anew
  // on every request (measured: a fifth of the throughput of GET /v1/health).
  const limit = timeout(options.requestTimeoutMs ?? 30_000, () => new HTTPException(504, { message: 'the request took too long' }));
  // Health answers at once from memory: a timer per probe would only cost it (measured: about a tenth of its rate).
  app.use('*', (c, next) => (isStream(c) || (c.req.method === 'GET' && c.req.path === '/v1/health') ? next() : limit(c, next)));
  const addressOf = (c: Context) => options.clientAddress?.(c) ?? 'unknown';
  // Keyed by who the caller is, never by what it says: a valid token's principal, else its
  // address. (Each unknown token must not get a bucket of its own.)
  app.use(
    '*',
    rateLimit({
      ...(options.rateLimit ?? { perSecond: 50, burst: 100 }),
      ...(options.now ? { now: options.now } : {}),
      key: (c) => {
        const principal = authenticate(/^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1]);
        return principal ? `p:${principal.id}` : `a:${addressOf(c)}`;
      },
    }),
  );
  const failureLimit = options.authFailureLimit ?? { perSecond: 1, burst: 30 };
  const failuresByAddress = new Buckets(failureLimit.perSecond, failureLimit.burst, options.now);
  const allFailures = new Buckets(failureLimit.perSecond * 10, failureLimit.burst * 10, options.now);
  const unauthorized = (message: string) => ({ message: errorBody('unauthorized', message) });
  const auth: MiddlewareHandler<ApiEnv> = bearerAuth({
    verifyToken: (token, c: Context<ApiEnv>) => {
      const principal = authenticate(token);
      if (principal) c.set('principal', principal);
      return principal !== undefined;
    },
    noAuthenticationHeader: unauthorized('a bearer token is required'),
    invalidToken: unauthorized('the bearer token is not valid'),
    invalidAuthenticationHeader: { message: errorBody('malformed_authorization', 'the Authorization header must be "Bearer <token>"') },
  });
  app.use('/v1/*', async (c, next) => {
    if (isPublic(c)) return next();
    const address = addressOf(c);
    const checks = [
      [failuresByAddress, address],
      [allFailures, '*'],
    ] as const;
    // Guessing tokens is paid for: once an address (or everyone together) has failed too often, every attempt waits.
    if (checks.some(([buckets, key]) => buckets.wait(key) > 0)) {
      const refused = spend(c, checks);
      if (refused) return refused;
    }
    let authenticated = false;
    try {
      await auth(c, () => ((authenticated = true), next()));
    } catch (error) {
      // Only the refusal of the credentials counts, not what the route does once they passed.
      if (!authenticated) for (const [buckets, key] of checks) buckets.take(key);
      throw error;
    }
  });
}
