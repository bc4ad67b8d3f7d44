import type { ExecutionContext } from 'hono';
import { workerApp, type Env } from './workerRuntime.ts';

// wrangler.jsonc binds the Durable Object classes by name to this entry's exports.
export { DirectoryObject, ProfileObject, RunObject } from './durableObjectStore.ts';
export type { Env };

/**
 * The Cloudflare Worker: the same Hono app as the Node host, over Durable Objects. `ctx` goes
 * to the app so a run accepted with 202 keeps going (`waitUntil`) after its response. Approval
 * deadlines fire on the directory object's alarm, without a request.
 */
export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    return (await workerApp(env)).fetch(request, env, ctx);
  },
};
