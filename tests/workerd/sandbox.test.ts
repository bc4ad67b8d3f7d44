import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unstable_startWorker } from 'wrangler';

// On Cloudflare Workers (real workerd through wrangler) the sandbox refuses dynamic code with a
// typed error, because workerd itself compiles no code from strings and has no worker to isolate
// it in; the code analyzer and the patch auditor still run there.

let worker: Awaited<ReturnType<typeof unstable_startWorker>> | undefined;
let url: URL;

beforeAll(async () => {
  worker = await unstable_startWorker({
    config: new URL('../../wrangler.jsonc', import.meta.url).pathname,
    entrypoint: new URL('./sandboxWorker.ts', import.meta.url).pathname,
    dev: { inspector: false, server: { hostname: '127.0.0.1', port: 0 }, persist: false, watch: false, logLevel: 'warn' },
  });
  await worker.ready;
  url = await worker.url;
});
afterAll(() => worker?.dispose());

describe('the sandbox on workerd', () => {
  it('refuses dynamic code with unsupported_host, as workerd compiles none and starts no worker; analysis and audit run', async () => {
    const answer = (await (await fetch(url)).json()) as Record<string, unknown>;
    expect(answer['refusal']).toMatchObject({ name: 'SandboxError', code: 'unsupported_host', failureMode: 'SYSTEM', retryable: false });
    expect((answer['refusal'] as { message: string }).message).toContain('workerd allows no code generation');
    expect(answer['codeGeneration']).toBe('refused: EvalError');
    expect(answer['worker']).toBe('undefined');
    expect(answer['analysis']).toEqual({ score: 80, rules: ['network_access'] });
    expect(answer['audit']).toBe(true);
  });
});
