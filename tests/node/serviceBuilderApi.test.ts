import { parse } from '@babel/parser';
import { afterAll, describe, expect, it } from 'vitest';
import { buildMicroservice, parseConfig, type ServiceBuild } from '../../src/core/index.ts';
import { createApp } from '../../src/api/app.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { createNodeSandbox } from '../../src/edge/nodeSandbox.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { USERS_SPEC } from '../support/serviceSpecs.ts';

// microservice_builder through the HTTP API: listed with its permissions, run as a one-step plan,
// and its files come back in the run's outputs exactly as built; without a sandbox the run fails
// with unsupported_host.

const TOKEN = 'builder-token-0123456789abcdef';
const sandbox = createNodeSandbox();
afterAll(() => sandbox.close());

async function setup(withSandbox: boolean) {
  const runtime = await createRuntime(new SqliteStore(':memory:'), parseConfig({}).config, {
    codeParser: parse,
    ...(withSandbox ? { toolVersions: { sandbox, parser: parse } } : {}),
  });
  const app = createApp(runtime, { tokens: { [TOKEN]: ['demo'] }, rateLimit: { perSecond: 1000, burst: 5000 } });
  return async (method: string, path: string, body?: unknown) => {
    const response = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), prefer: 'wait=30' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

const plan = [{ tool: 'microservice_builder', input: { spec: USERS_SPEC } }];

describe('microservice_builder through the API', () => {
  it('is listed with its permissions and returns the built files in the run outputs', { timeout: 60_000 }, async () => {
    const call = await setup(true);
    const tools = (await call('GET', '/v1/profiles/demo/tools')).body['tools'] as Array<Record<string, unknown>>;
    expect(tools.find((t) => t['name'] === 'microservice_builder')).toMatchObject({
      capabilities: ['code.generate', 'code.analyze', 'sandbox.run'],
      allowNetwork: false,
      requiresApproval: false,
      idempotent: true,
    });
    const started = await call('POST', '/v1/runs', { goal: 'build the users service', profile: 'demo', plan });
    expect(started.body).toMatchObject({ status: 'completed' });
    const outputs = started.body['outputs'] as Record<string, ServiceBuild>;
    const [output] = Object.values(outputs);
    const direct = await buildMicroservice(USERS_SPEC, { sandbox, parser: parse });
    expect(output!.ok).toBe(true);
    expect(output!.files).toEqual(direct.files);
  });

  it('fails the step with unsupported_host where the host has no sandbox', { timeout: 60_000 }, async () => {
    const call = await setup(false);
    const started = await call('POST', '/v1/runs', { goal: 'build the users service', profile: 'demo', plan });
    expect(started.body).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(started.body['error'])).toContain('unsupported_host');
  });
});
