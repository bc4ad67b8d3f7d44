import type { Context, ExecutionContext } from 'hono';

/**
 * The execution context of a host whose process outlives its requests (the Node host, the
 * browser tab): work handed to `waitUntil` goes on by itself there, so it does nothing. Such a
 * host passes it to `fetch`: without one, Hono's `c.executionCtx` throws, and every run started
 * over HTTP asked for it (to keep the run alive on a Worker), an error and its stack each time.
 */
export const PROCESS_LIFETIME_CONTEXT: ExecutionContext = { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} };

/**
 * What keeps work going after the request that started it is answered: the host's `waitUntil`
 * (a Worker's keeps its isolate alive for it), or undefined when the caller of `app.fetch`
 * passed no execution context (Hono throws then).
 */
export function waitUntilOf(c: Context): ((work: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (work) => ctx.waitUntil(work);
  } catch {
    return undefined;
  }
}
