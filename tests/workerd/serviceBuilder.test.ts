import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Call } from '../support/apiConformance.ts';
import { USERS_SPEC } from '../support/serviceSpecs.ts';
import { startWorker } from './startWorker.ts';

// On the Cloudflare Worker microservice_builder is listed like on every host with a code parser,
// and each call is refused: workerd compiles no code from strings, so the service cannot be
// smoke-tested there.

describe('Cloudflare Worker in workerd: microservice_builder', () => {
  let call: Call;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ call, close: dispose } = await startWorker());
  }, 120_000);
  afterAll(async () => {
    await dispose?.();
  });

  it('lists the tool and fails its runs with unsupported_host, saying why', async () => {
    const tools = (await (await call('GET', '/v1/profiles/demo/tools')).json()) as { tools: Array<{ name: string; allowNetwork: boolean }> };
    expect(tools.tools.find((t) => t.name === 'microservice_builder')).toMatchObject({ allowNetwork: false });
    const run = await call('POST', '/v1/runs', {
      body: { goal: 'build the users service', profile: 'demo', plan: [{ tool: 'microservice_builder', input: { spec: USERS_SPEC } }] },
      headers: { prefer: 'wait=20' },
    });
    const outcome = (await run.json()) as { status: string; error?: { code: string; message: string } };
    expect(outcome.status).toBe('failed');
    expect(JSON.stringify(outcome.error)).toContain('unsupported_host');
    expect(outcome.error?.message).toContain('workerd allows no code generation');
  });
});
