import { unstable_startWorker } from 'wrangler';
import { TOKENS, caller, type Call } from '../support/apiConformance.ts';

/** Start the Worker of wrangler.jsonc in workerd on loopback, with the test tokens and `vars`; a caller over it and how to stop it. */
export async function startWorker(vars: Record<string, string> = {}): Promise<{ call: Call; url: URL; close(): Promise<void> }> {
  const bindings = Object.fromEntries(Object.entries({ CUGAR_TOKENS: TOKENS, ...vars }).map(([name, value]) => [name, { type: 'plain_text' as const, value }]));
  const worker = await unstable_startWorker({
    config: new URL('../../wrangler.jsonc', import.meta.url).pathname,
    bindings,
    dev: { inspector: false, server: { hostname: '127.0.0.1', port: 0 }, persist: false },
  });
  await worker.ready;
  const url = await worker.url;
  return { call: caller((path, init) => fetch(new URL(path, url), init)), url, close: () => worker.dispose() };
}
