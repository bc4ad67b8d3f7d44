import { parseConfig } from '../core/index.ts';
import { createApp } from '../api/app.ts';
import { createRuntime } from '../api/runtime.ts';
import { parseTokenMap } from '../api/tokens.ts';
import { DurableObjectStore, type DurableObjectBindings } from './durableObjectStore.ts';

// wrangler.jsonc binds the Durable Object classes by name to this entry's exports.
export { DirectoryObject, ProfileObject, RunObject } from './durableObjectStore.ts';

/** The Worker's bindings (see wrangler.jsonc). */
export interface Env extends DurableObjectBindings {
  /** `token=profile1,profile2;other=*`; without tokens every /v1 request is refused. */
  CUGAR_TOKENS?: string;
  CUGAR_CORS_ORIGINS?: string;
}

let app: Promise<ReturnType<typeof createApp>> | undefined;

/**
 * The Cloudflare Worker: the same Hono app as the Node host, over Durable Objects. `ctx` goes
 * to the app so a run accepted with 202 keeps going (`waitUntil`) after its response.
 */
export default {
  fetch(request: Request, env: Env, ctx: import('hono').ExecutionContext): Promise<Response> {
    app ??= (async () => {
      const config = parseConfig({}).config;
      const runtime = await createRuntime(new DurableObjectStore(env), config);
      const corsOrigins = (env.CUGAR_CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean);
      return createApp(runtime, { tokens: parseTokenMap(env.CUGAR_TOKENS), corsOrigins });
    })();
    return app.then((instance) => instance.fetch(request, env, ctx));
  },
};
