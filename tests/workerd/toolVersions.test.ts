import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Call } from '../support/apiConformance.ts';
import { startWorker } from './startWorker.ts';

// The Worker serves the tool-version routes like every host, and refuses them: workerd allows no
// code generation, so a tool written at run time has nowhere to run there.

describe('Cloudflare Worker in workerd: tools written at run time', () => {
  let call: Call;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ call, close: dispose } = await startWorker());
  }, 120_000);
  afterAll(async () => {
    await dispose?.();
  });

  it('refuses proposals, approvals and listings with unsupported_host', async () => {
    const body = {
      source: 'export default (input) => ({ n: input.n })',
      description: 'Echo a number',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    };
    const base = '/v1/profiles/demo/tools/echo_number/versions';
    for (const [method, path, payload] of [
      ['POST', base, body],
      ['GET', base, undefined],
      ['POST', `${base}/${'0'.repeat(64)}/approve`, undefined],
    ] as const) {
      const response = await call(method, path, payload === undefined ? {} : { body: payload });
      expect(response.status).toBe(501);
      const answer = (await response.json()) as { error: { code: string; message: string } };
      expect(answer.error.code).toBe('unsupported_host');
      expect(answer.error.message).toContain('Cloudflare Workers allow no code generation');
    }
    // Nothing was kept: the tools of the profile are the shipped ones.
    const tools = (await (await call('GET', '/v1/profiles/demo/tools')).json()) as { tools: Array<{ name: string }> };
    expect(tools.tools.map((t) => t.name)).not.toContain('echo_number');
  });
});
