import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJournal, verifyJournal } from '../../src/core/index.ts';
import { DEMO, OTHER } from '../support/apiConformance.ts';
import { startEverythingHttp, type HttpChild } from '../support/mcpFixtures.ts';
import { startWorker } from './startWorker.ts';

type Structured = { runId: string; status: string; output?: unknown };
const structured = (result: unknown) => (result as { structuredContent: Structured }).structuredContent;

describe('MCP over Streamable HTTP on the Worker (workerd, Durable Objects)', () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker();
  }, 120_000);
  afterAll(() => worker.close());

  const connect = async (token: string, path = '/mcp') => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(path, worker.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  };

  it('refuses requests without a valid token (401) and profiles the token may not use (403)', async () => {
    const post = (path: string, token?: string) =>
      fetch(new URL(path, worker.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
    expect((await post('/mcp')).status).toBe(401);
    expect((await post('/mcp', 'not-a-real-token-at-all')).status).toBe(401);
    expect((await post('/mcp', OTHER)).status).toBe(403);
    expect((await post('/mcp', DEMO)).status).toBe(200);
  });

  it('lists the tools, runs a call as a journaled run in the Durable Objects, and serves its journal', async () => {
    const client = await connect(DEMO);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['run_goal', 'add', 'echo']));
    const result = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    const run = structured(result);
    expect(run).toMatchObject({ status: 'completed', output: 42 });
    const goal = await client.callTool({ name: 'run_goal', arguments: { goal: 'multiply 6 and 7' } });
    expect(structured(goal)).toMatchObject({ status: 'completed', output: { 'step-0': 42 } });
    const journal = await client.readResource({ uri: `cugar://runs/${run.runId}/journal` });
    const first = journal.contents[0];
    const events = parseJournal(first && 'text' in first ? first.text : '');
    expect(verifyJournal(events).ok).toBe(true);
    expect(events.at(-1)?.type).toBe('run_completed');
    await client.close();
  });
});

describe('MCP client on the Worker: tools of a Streamable HTTP server (loopback) in a profile', () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let everything: HttpChild;
  const token = 'worker-mcp-secret-41c7e9a0d2';
  beforeAll(async () => {
    everything = await startEverythingHttp({ MCP_EXPECT_AUTHORIZATION: `Bearer ${token}` });
    worker = await startWorker({
      CUGAR_MCP_SERVERS: JSON.stringify([
        {
          name: 'remote',
          profile: 'demo',
          tools: ['get-sum', 'echo'],
          transport: { type: 'http', url: everything.url, headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' } },
        },
        { name: 'local', profile: 'demo', transport: { type: 'stdio', command: 'node' } },
      ]),
      CUGAR_MCP_ALLOW: JSON.stringify({ demo: { network: true, commands: ['node'] } }),
      CUGAR_SECRET_REMOTE_TOKEN: token,
    });
  }, 120_000);
  afterAll(async () => {
    await worker?.close();
    await everything?.kill();
  });

  it("registers the HTTP server's tools (a stdio server is left out) and runs a call as a journaled run", async () => {
    const tools = await worker.call('GET', '/v1/profiles/demo/tools');
    expect(tools.status).toBe(200);
    const listed = ((await tools.json()) as { tools: Array<{ name: string; mcpServer?: string; allowNetwork: boolean }> }).tools.filter((t) => t.mcpServer);
    expect(listed.map((t) => [t.name, t.mcpServer, t.allowNetwork])).toEqual([
      ['remote_echo', 'remote', true],
      ['remote_get_sum', 'remote', true],
    ]);
    const run = await worker.call('POST', '/v1/runs', {
      body: { goal: 'sum over MCP', profile: 'demo', plan: [{ tool: 'remote_get_sum', input: { a: 19, b: 23 } }] },
      headers: { prefer: 'wait=20' },
    });
    const outcome = (await run.json()) as { status: string; outputs: Record<string, unknown> };
    expect(outcome).toMatchObject({
      status: 'completed',
      outputs: { 'step-0': { server: 'remote', tool: 'get-sum', content: [{ text: 'The sum of 19 and 23 is 42.' }] } },
    });
    // The same tools over the Worker's own MCP endpoint.
    const client = await connectTo(worker.url, DEMO);
    const echoed = await client.callTool({ name: 'remote_echo', arguments: { message: `key ${token}` } });
    expect(structured(echoed)).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(echoed)).not.toContain(token);
    await client.close();
  });
});

async function connectTo(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}
