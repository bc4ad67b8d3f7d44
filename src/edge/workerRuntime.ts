import { parseConfig } from '../core/index.ts';
import { createApp } from '../api/app.ts';
import { parseApprovalPolicy } from '../api/approvalSettings.ts';
import { createRuntime, type Runtime } from '../api/runtime.ts';
import { parseTokenMap } from '../api/tokens.ts';
import { DurableObjectStore, type DurableObjectBindings } from './durableObjectStore.ts';

/** The Worker's bindings (see wrangler.jsonc). */
export interface Env extends DurableObjectBindings {
  /** `token=profile1,profile2;other=*`; without tokens every /v1 request is refused. */
  CUGAR_TOKENS?: string;
  CUGAR_CORS_ORIGINS?: string;
  /** How long an approval waits before its timeout policy decides, in milliseconds; unset waits forever. */
  CUGAR_APPROVAL_TIMEOUT_MS?: string;
  /** `reject` (default) or `approve`. */
  CUGAR_APPROVAL_ON_TIMEOUT?: string;
}

let runtime: Promise<Runtime> | undefined;
let app: Promise<ReturnType<typeof createApp>> | undefined;

/** This isolate's runtime over the Durable Objects: built once, shared by requests and alarms. */
export function workerRuntime(env: Env): Promise<Runtime> {
  runtime ??= (async () => {
    const approval = parseApprovalPolicy({ CUGAR_APPROVAL_TIMEOUT_MS: env.CUGAR_APPROVAL_TIMEOUT_MS, CUGAR_APPROVAL_ON_TIMEOUT: env.CUGAR_APPROVAL_ON_TIMEOUT });
    return createRuntime(new DurableObjectStore(env), parseConfig({}).config, approval ? { approval } : {});
  })();
  return runtime;
}

/** This isolate's Hono app: the same app as the Node host's. */
export function workerApp(env: Env): Promise<ReturnType<typeof createApp>> {
  app ??= (async () => {
    const corsOrigins = (env.CUGAR_CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean);
    return createApp(await workerRuntime(env), { tokens: parseTokenMap(env.CUGAR_TOKENS), corsOrigins });
  })();
  return app;
}
