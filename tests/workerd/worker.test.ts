import { unstable_startWorker } from 'wrangler';
import { TOKENS, caller, describeApiConformance } from '../support/apiConformance.ts';

// The same conformance suite as the Node host, against the Worker running in real workerd
// (through wrangler), with runs, the directory and profile memory in Durable Objects.
describeApiConformance('Cloudflare Worker in workerd', async () => {
  const worker = await unstable_startWorker({
    config: new URL('../../wrangler.jsonc', import.meta.url).pathname,
    bindings: { CUGAR_TOKENS: { type: 'plain_text', value: TOKENS } },
    dev: { inspector: false, server: { hostname: '127.0.0.1', port: 0 }, persist: false },
  });
  await worker.ready;
  const url = await worker.url;
  return { call: caller((path, init) => fetch(new URL(path, url), init)), close: () => worker.dispose() };
});
