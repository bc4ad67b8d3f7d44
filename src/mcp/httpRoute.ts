import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context, Hono } from 'hono';
import type { Schema } from 'hono/types';
import { ProfileNameSchema, redactText } from '../core/index.ts';
import { errorBody } from '../api/errors.ts';
import { waitUntilOf } from '../api/executionContext.ts';
import type { Runtime } from '../api/runtime.ts';
import { Buckets, createAuthenticator, mayUse, type ApiEnv, type TokenMap } from '../api/security.ts';
import { createMcpServer } from './server.ts';

/** Options of {@link mountMcp}. */
export interface McpRouteOptions {
  /** The API's bearer tokens: `/mcp` takes the same ones, with the same profiles. */
  tokens: TokenMap;
  /** Seconds a call waits for its run. Default 20. */
  waitSeconds?: number;
  /** The caller's address as the host knows it, for counting failed authentications. */
  clientAddress?: (c: Context) => string | undefined;
  log?: (line: string) => void;
}

/**
 * Serve MCP over Streamable HTTP at `/mcp` (the token's default profile, `config.defaultProfile`)
 * and `/mcp/{profile}`, on the app the host built (Node and the Worker alike). Stateless: each
 * POST gets its own server and transport, so any isolate or process can answer it; there is no
 * session and no server-initiated stream (GET and DELETE answer 405). The request passes the
 * app's security chain (limits, rate limit) and then the same bearer tokens and profiles as `/v1`:
 * no token or a wrong one is 401, a profile the token may not use is 403. Failed
 * authentications are counted per address like the API's.
 */
export function mountMcp<S extends Schema>(app: Hono<ApiEnv, S, '/'>, runtime: Runtime, options: McpRouteOptions): void {
  const authenticate = createAuthenticator(options.tokens);
  const failures = new Buckets(1, 30);
  const log = (line: string) => (options.log ?? ((l: string) => console.error(l)))(redactText(line));
  const handle = async (c: Context, profile: string): Promise<Response> => {
    const address = options.clientAddress?.(c) ?? 'unknown';
    if (failures.wait(address) > 0) {
      c.header('Retry-After', String(failures.wait(address)));
      return c.json(errorBody('rate_limited', 'too many failed authentications; retry later'), 429);
    }
    const token = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    const principal = authenticate(token);
    if (!principal) {
      failures.take(address);
      c.header('WWW-Authenticate', 'Bearer');
      return c.json(errorBody('unauthorized', token ? 'the bearer token is not valid' : 'a bearer token is required'), 401);
    }
    if (!ProfileNameSchema.safeParse(profile).success) return c.json(errorBody('invalid_profile', 'not a profile name'), 400);
    if (!mayUse(principal, profile)) return c.json(errorBody('forbidden_profile', `this token may not use profile "${profile}"`), 403);
    if (c.req.method !== 'POST') {
      c.header('Allow', 'POST');
      return c.json(errorBody('method_not_allowed', 'this MCP endpoint is stateless: POST JSON-RPC messages to it'), 405);
    }
    const keepAlive = waitUntilOf(c);
    const server = createMcpServer({
      runtime,
      profile,
      log,
      ...(options.waitSeconds !== undefined ? { waitSeconds: options.waitSeconds } : {}),
      ...(keepAlive ? { keepAlive } : {}),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      void server.close().catch(() => undefined);
    }
  };
  app.all('/mcp', (c) => handle(c, runtime.config.defaultProfile));
  app.all('/mcp/:profile', (c) => handle(c, c.req.param('profile')));
}
