import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJournal, verifyJournal } from '../../src/core/index.ts';
import { DEMO, OTHER } from '../support/apiConformance.ts';
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
