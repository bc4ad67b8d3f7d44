import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/pages/fixtureServer.ts';

// The Node host as `npm start` builds it: the web tools are listed with their permissions, and
// over HTTP a run of internet_extract reaches an allow-listed loopback page in a profile that
// allows the network (and the run replays without fetching again), and is refused (no connection
// made) for an address outside the allow-list.

const dir = mkdtempSync(join(tmpdir(), 'cugar-web-host-'));
let server: FixtureServer;
let host: RunningServer;

beforeAll(async () => {
  server = await startFixtureServer();
  host = await startServer({
    port: 0,
    dataDir: dir,
    corpusDir: join(dir, 'no-corpus'),
    log: () => undefined,
    mcp: { servers: [], allow: { demo: { network: true, commands: [] } } },
    web: { allow: { cidrs: ['127.0.0.1/32'] }, timeoutMs: 2000 },
  });
}, 60_000);
afterAll(async () => {
  await host?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${host.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${host.localToken}`, 'content-type': 'application/json', prefer: 'wait=20' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe('the Node host’s web tools', () => {
  it('lists them with their network permission and capabilities', async () => {
    const { tools } = (await call('/v1/profiles/demo/tools')) as { tools: Array<{ name: string; allowNetwork: boolean; capabilities: string[] }> };
    expect(tools.find((tool) => tool.name === 'internet_extract')).toMatchObject({ allowNetwork: true, capabilities: ['net:http', 'text'] });
    expect(tools.find((tool) => tool.name === 'web_search')).toMatchObject({ allowNetwork: false, capabilities: ['search'] });
  });

  it('extracts an allow-listed page over HTTP and refuses one outside the allow-list without connecting', async () => {
    const done = await call('/v1/runs', { goal: `internet_extract(url="${server.origin}/page/forum-thread")`, profile: 'demo' });
    expect(done['status']).toBe('completed');
    expect(JSON.stringify(done['outputs'])).toContain('barrel adjuster');
    // The recorded run replays from its journal, hash for hash, without fetching the page again.
    const paths = server.paths.length;
    const journal = await (
      await fetch(`${host.url}/v1/runs/${String(done['runId'])}/journal?raw=true&format=ndjson`, { headers: { authorization: `Bearer ${host.localToken}` } })
    ).text();
    expect(await call('/v1/replay', { journal })).toMatchObject({ ok: true });
    expect(server.paths.length).toBe(paths);
    const before = server.connections();
    const refused = await call('/v1/runs', { goal: `internet_extract(url="http://localhost:${server.port}/page/forum-thread")`, profile: 'demo' });
    expect(refused['status']).toBe('failed');
    expect(refused['error']).toMatchObject({ code: 'url_refused' });
    expect(server.connections()).toBe(before);
  });
});
