import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT, type Call } from '../support/apiConformance.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/pages/fixtureServer.ts';
import { startWorker } from './startWorker.ts';

// The web tools on the Worker in real workerd: listed with their permissions, internet_extract
// refused for loopback, metadata and non-http URLs by the URL checks (no connection reaches the
// loopback listener), and, with loopback allow-listed, a page fetched with manual redirects and
// its main text extracted by linkedom inside workerd.

interface Outcome {
  status: string;
  outputs: Record<string, unknown>;
  error?: { code: string; message: string; details?: { reason?: string } };
}

describe('Cloudflare Worker in workerd: web tools', () => {
  let server: FixtureServer;
  let closed: { call: Call; close(): Promise<void> };
  let open: { call: Call; close(): Promise<void> };
  beforeAll(async () => {
    server = await startFixtureServer();
    closed = await startWorker({ CUGAR_MCP_ALLOW: '{"demo":{"network":true}}' });
    open = await startWorker({ CUGAR_MCP_ALLOW: '{"demo":{"network":true}}', CUGAR_NET_ALLOW: '127.0.0.1/32' });
  }, 120_000);
  afterAll(async () => {
    await closed?.close();
    await open?.close();
    await server?.close();
  });

  const run = async (call: Call, goal: string): Promise<Outcome> =>
    (await (await call('POST', '/v1/runs', { body: { goal, profile: 'demo' }, headers: WAIT })).json()) as Outcome;

  it('lists web_search and internet_extract with their network permission', async () => {
    const listed = (await (await closed.call('GET', '/v1/profiles/demo/tools')).json()) as { tools: Array<{ name: string; allowNetwork: boolean }> };
    expect(
      listed.tools.filter((tool) => tool.name === 'web_search' || tool.name === 'internet_extract').map(({ name, allowNetwork }) => ({ name, allowNetwork })),
    ).toEqual([
      { name: 'internet_extract', allowNetwork: true },
      { name: 'web_search', allowNetwork: false },
    ]);
  });

  it('refuses private, metadata and non-http URLs before any connection', async () => {
    const urls = [
      `http://127.0.0.1:${server.port}/page/recipe`,
      `http://2130706433:${server.port}/page/recipe`,
      `http://[::ffff:127.0.0.1]:${server.port}/page/recipe`,
      `http://localhost:${server.port}/page/recipe`,
      'http://169.254.169.254/latest/meta-data/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://[fd00:ec2::254]/',
      'file:///etc/passwd',
    ];
    const before = server.connections();
    for (const url of urls) {
      const outcome = await run(closed.call, `internet_extract(url="${url}")`);
      expect(outcome.status, url).toBe('failed');
      expect(outcome.error?.code, url).toBe('url_refused');
    }
    expect(server.connections()).toBe(before);
  });

  it('with loopback allow-listed, follows a re-checked redirect and extracts the main text inside workerd', async () => {
    const done = await run(open.call, `internet_extract(url="${server.origin}/redirect?to=%2Fpage%2Fnews-article")`);
    expect(done.status).toBe('completed');
    const text = JSON.stringify(done.outputs);
    expect(text).toContain('voted eight to three');
    expect(text).not.toContain('Related stories');
    const refused = await run(open.call, `internet_extract(url="${server.origin}/redirect?to=${encodeURIComponent('http://10.0.0.1/')}")`);
    expect(refused.error?.code).toBe('url_refused');
  });
});
