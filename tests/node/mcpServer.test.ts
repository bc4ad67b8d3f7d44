import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseJournal, registerSecretValues, verifyJournal } from '../../src/core/index.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { ADMIN, DEMO, OTHER } from '../support/apiConformance.ts';
import { EVERYTHING } from '../support/mcpFixtures.ts';

const root = join(import.meta.dirname, '..', '..');
const execNode = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'cugar-mcp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Structured = { runId: string; status: string; output?: unknown; approvalId?: string; error?: { code: string } };
const structured = (result: unknown) => (result as { structuredContent: Structured }).structuredContent;
const textOf = (result: { contents: ReadonlyArray<{ uri: string } & ({ text: string } | { blob: string })> }) => {
  const first = result.contents[0];
  return first && 'text' in first ? first.text : '';
};

describe('cugar mcp: the local data directory as an MCP server on stdio (the SDK client spawning the CLI)', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(root, 'src/cli/bin.mjs'), 'mcp', '--data-dir', join(dir, 'stdio')],
        cwd: root,
        env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
        stderr: 'ignore',
      }),
    );
  }, 60_000);
  afterAll(() => client.close());

  it("lists the profile's tools with their JSON Schemas, and run_goal", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names[0]).toBe('run_goal');
    expect(names).toEqual(expect.arrayContaining(['add', 'multiply', 'text_stats', 'echo']));
    expect(tools.find((t) => t.name === 'add')?.inputSchema).toMatchObject({ type: 'object', required: ['a', 'b'] });
  });

  it('runs a tool call as a journaled run and serves the run, its redacted journal and trace as resources', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result.isError).toBeFalsy();
    const run = structured(result);
    expect(run).toMatchObject({ status: 'completed', output: 5 });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`cugar://runs/${run.runId}`);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['cugar://runs/{runId}', 'cugar://runs/{runId}/journal', 'cugar://runs/{runId}/trace']);
    const outcome = JSON.parse(textOf(await client.readResource({ uri: `cugar://runs/${run.runId}` }))) as { status: string; outputs: unknown };
    expect(outcome).toMatchObject({ status: 'completed', outputs: { 'step-0': 5 } });
    const journal = parseJournal(textOf(await client.readResource({ uri: `cugar://runs/${run.runId}/journal` })));
    expect(verifyJournal(journal).ok).toBe(true);
    expect(journal.find((e) => e.type === 'tool_call_start')).toMatchObject({ data: { tool: 'add', input: { a: 2, b: 3 } } });
    const trace = JSON.parse(textOf(await client.readResource({ uri: `cugar://runs/${run.runId}/trace` }))) as { records: unknown[] };
    expect(trace.records.length).toBeGreaterThan(3);
    await expect(client.readResource({ uri: 'cugar://runs/no-such-run' })).rejects.toThrow(/no resource/);
  });

  it('plans and runs a goal with run_goal, and answers bad calls with errors', async () => {
    const result = await client.callTool({ name: 'run_goal', arguments: { goal: 'add 2 and 3, then multiply the result by 4' } });
    expect(structured(result)).toMatchObject({ status: 'completed', output: { 'step-0': 5, 'step-1': 20 } });
    const invalid = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
    expect(invalid.isError).toBe(true);
    expect(structured(invalid)).toMatchObject({ status: 'failed', error: { code: 'invalid_input' } });
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/has no tool/);
    await expect(client.callTool({ name: 'run_goal', arguments: {} })).rejects.toThrow(/invalid arguments/);
    let deep: Record<string, unknown> = { message: 'x' };
    for (let i = 0; i < 100; i++) deep = { message: deep };
    await expect(client.callTool({ name: 'echo', arguments: deep })).rejects.toThrow(/nest deeper than 64/);
  });
});

describe('cugar mcp in front of other MCP servers (CUGAR_MCP_SERVERS)', () => {
  /** `cugar mcp` with the reference server's get-sum and echo (echo needs approval) in profile demo. */
  const spawnProxy = async (options: ConstructorParameters<typeof Client>[1] = {}) => {
    const client = new Client({ name: 'test', version: '1.0.0' }, options);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(root, 'src/cli/bin.mjs'), 'mcp', '--data-dir', join(dir, 'proxy')],
        cwd: root,
        env: {
          ...(process.env as Record<string, string>),
          NO_COLOR: '1',
          CUGAR_MCP_SERVERS: JSON.stringify([
            {
              name: 'everything',
              profile: 'demo',
              tools: ['get-sum', 'echo'],
              requireApproval: ['echo'],
              transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
            },
          ]),
          CUGAR_MCP_ALLOW: JSON.stringify({ demo: { commands: [process.execPath] } }),
        },
        stderr: 'ignore',
      }),
    );
    return client;
  };

  it("serves their tools behind the profile's guardrails: each call a journaled run, approvals included", async () => {
    const client = await spawnProxy();
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['add', 'everything_echo', 'everything_get_sum']));
      const sum = await client.callTool({ name: 'everything_get_sum', arguments: { a: 40, b: 2 } });
      expect(structured(sum)).toMatchObject({ status: 'completed', output: { server: 'everything', content: [{ text: 'The sum of 40 and 2 is 42.' }] } });
      // A client that cannot ask its user: the run stays paused and the answer names the approval.
      const echo = await client.callTool({ name: 'everything_echo', arguments: { message: 'hello' } });
      expect(structured(echo)).toMatchObject({ status: 'paused', approvalId: expect.any(String) });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('asks the person at a client that supports elicitation, and goes on with their decision', async () => {
    const client = await spawnProxy({ capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    let answer = 'approve';
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { decision: answer } };
    });
    try {
      const approved = await client.callTool({ name: 'everything_echo', arguments: { message: 'hello' } });
      expect(structured(approved)).toMatchObject({ status: 'completed', output: { content: [{ text: 'Echo: hello' }] } });
      expect(asked).toEqual([expect.stringMatching(/wants to call everything_echo with \{"message":"hello"\}/)]);
      const journal = parseJournal(textOf(await client.readResource({ uri: `cugar://runs/${structured(approved).runId}/journal` })));
      expect(journal.find((e) => e.type === 'approval_received')).toMatchObject({ data: { decision: 'approve', by: 'mcp-client' } });
      answer = 'reject';
      const rejected = await client.callTool({ name: 'everything_echo', arguments: { message: 'again' } });
      expect(rejected.isError).toBe(true);
      expect(structured(rejected)).toMatchObject({ status: 'failed', error: { code: 'approval_rejected' } });
      expect(asked).toHaveLength(2);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('MCP over Streamable HTTP on the Node host (loopback)', () => {
  let server: RunningServer;
  const canary = 'sk-mcp-canary-5d1f0b9e77aa';
  const connect = async (token: string, path = '/mcp') => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    return client;
  };
  const api = (path: string, token: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    server = await startServer({
      port: 0,
      dataDir: join(dir, 'http'),
      corpusDir: join(dir, 'no-corpus'),
      tokens: { [ADMIN]: '*', [DEMO]: ['demo'], [OTHER]: ['other'] },
      rateLimit: { perSecond: 1000, burst: 5000 },
      mcp: {
        servers: [
          { name: 'everything', profile: 'demo', tools: ['get-sum'], transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } },
        ],
        allow: { demo: { network: false, commands: [process.execPath] } },
      },
      log: () => undefined,
    });
    server.runtime.registry.register('demo', 'transfer', {
      description: 'Transfer money to an account',
      parameters: z.object({ amount: z.number().positive(), to: z.string() }),
      requiresApproval: true,
      handler: ({ amount, to }) => `sent ${amount} to ${to}`,
    });
    server.runtime.registry.register('other', 'shout', {
      description: 'Shout a message',
      parameters: z.object({ message: z.string() }),
      handler: ({ message }) => message.toUpperCase(),
    });
    registerSecretValues([canary]);
  }, 60_000);
  afterAll(() => server.close());

  it('answers 401 without a token or with a wrong one, 403 for a profile the token may not use, 405 for GET', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const post = (path: string, token?: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: initialize,
      });
    const none = await post('/mcp');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await none.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await post('/mcp', 'not-a-real-token-at-all')).status).toBe(401);
    expect((await post('/mcp', OTHER)).status).toBe(403);
    expect((await post('/mcp/other', DEMO)).status).toBe(403);
    expect((await post('/mcp/demo', OTHER)).status).toBe(403);
    expect((await post('/mcp/demo', DEMO)).status).toBe(200);
    expect((await post('/mcp/other', OTHER)).status).toBe(200);
    expect((await fetch(`${server.url}/mcp`, { headers: { authorization: `Bearer ${DEMO}`, accept: 'text/event-stream' } })).status).toBe(405);
    await expect(connect('wrong-token-0123456789')).rejects.toThrow();
  });

  it("serves each profile its own tools, the configured MCP servers' among them", async () => {
    const demo = await connect(DEMO);
    const demoTools = (await demo.listTools()).tools.map((t) => t.name);
    expect(demoTools).toEqual(expect.arrayContaining(['run_goal', 'add', 'transfer', 'everything_get_sum']));
    expect(demoTools).not.toContain('shout');
    const listed = (await (await api('/v1/profiles/demo/tools', DEMO)).json()) as { tools: Array<{ name: string; mcpServer?: string }> };
    expect(listed.tools.find((t) => t.name === 'everything_get_sum')).toMatchObject({ mcpServer: 'everything' });
    expect(listed.tools.find((t) => t.name === 'add')?.mcpServer).toBeUndefined();
    const summed = await demo.callTool({ name: 'everything_get_sum', arguments: { a: 1, b: 41 } });
    expect(structured(summed)).toMatchObject({
      status: 'completed',
      output: { server: 'everything', tool: 'get-sum', content: [{ text: 'The sum of 1 and 41 is 42.' }] },
    });
    const other = await connect(OTHER, '/mcp/other');
    expect((await other.listTools()).tools.map((t) => t.name)).toEqual(['run_goal', 'shout']);
    expect(structured(await other.callTool({ name: 'shout', arguments: { message: 'hi' } }))).toMatchObject({ status: 'completed', output: 'HI' });
    // Another profile's run reads as if it did not exist.
    await expect(other.readResource({ uri: `cugar://runs/${structured(summed).runId}` })).rejects.toThrow(/no resource/);
    await Promise.all([demo.close(), other.close()]);
  });

  it('pauses a run started over MCP for approval, names the approval, and finishes after approval through the API', async () => {
    const client = await connect(DEMO);
    const paused = await client.callTool({ name: 'transfer', arguments: { amount: 5, to: 'alice' } });
    const run = structured(paused);
    expect(run).toMatchObject({ status: 'paused', approvalId: expect.any(String) });
    expect(JSON.stringify(paused.content)).toContain(`POST /v1/approvals/${run.approvalId}`);
    const decided = await api(`/v1/approvals/${encodeURIComponent(run.approvalId!)}`, DEMO, { decision: 'approve', reason: 'ok' });
    expect(decided.status).toBe(200);
    let status = '';
    for (let i = 0; i < 50 && status !== 'completed'; i++) {
      status = ((await (await api(`/v1/runs/${run.runId}`, DEMO)).json()) as { status: string }).status;
      if (status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe('completed');
    const outcome = JSON.parse(textOf(await client.readResource({ uri: `cugar://runs/${run.runId}` }))) as { outputs: unknown };
    expect(outcome.outputs).toEqual({ 'step-0': 'sent 5 to alice' });
    await client.close();
  });

  it('keeps secrets out of what it answers: results, resources and the journal resource are redacted', async () => {
    const client = await connect(ADMIN);
    const result = await client.callTool({ name: 'echo', arguments: { message: `the key is ${canary}` } });
    expect(JSON.stringify(result)).not.toContain(canary);
    const runId = structured(result).runId;
    for (const uri of [`cugar://runs/${runId}`, `cugar://runs/${runId}/journal`, `cugar://runs/${runId}/trace`]) {
      const text = textOf(await client.readResource({ uri }));
      expect(text.length).toBeGreaterThan(10);
      expect(text, uri).not.toContain(canary);
    }
    // The raw journal (journal:raw tokens only) still holds what the run was given.
    expect(JSON.stringify(await server.runtime.store.readJournal(runId))).toContain(canary);
    await client.close();
  });
});

describe("the Node host keeps each MCP server's listing", () => {
  it('registers a server that is away at start from its last listing: its runs replay, and new calls fail with a retryable error', async () => {
    const dataDir = join(dir, 'kept');
    const tokens = { [ADMIN]: '*' as const };
    const start = (command: string, args: string[]) =>
      startServer({
        port: 0,
        dataDir,
        corpusDir: join(dir, 'no-corpus'),
        tokens,
        mcp: {
          servers: [{ name: 'everything', profile: 'demo', tools: ['get-sum'], transport: { type: 'stdio', command, args } }],
          allow: { demo: { network: false, commands: [command] } },
        },
        log: () => undefined,
      });
    const call = (server: RunningServer, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, prefer: 'wait=20', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const first = await start(process.execPath, [EVERYTHING, 'stdio']);
    const run = (await (
      await call(first, '/v1/runs', { goal: 'sum', profile: 'demo', plan: [{ tool: 'everything_get_sum', input: { a: 1, b: 2 } }] })
    ).json()) as {
      runId: string;
      status: string;
    };
    expect(run.status).toBe('completed');
    const journal = await (await call(first, `/v1/runs/${run.runId}/journal?format=ndjson`)).text();
    await first.close();

    const second = await start('/nonexistent/mcp-server', []);
    try {
      const tools = (await (await call(second, '/v1/profiles/demo/tools')).json()) as { tools: Array<{ name: string; mcpServer?: string }> };
      expect(tools.tools.find((t) => t.name === 'everything_get_sum')).toMatchObject({ mcpServer: 'everything' });
      const replayed = (await (await call(second, '/v1/replay', { journal })).json()) as { ok: boolean };
      expect(replayed).toMatchObject({ ok: true });
      const failed = (await (
        await call(second, '/v1/runs', { goal: 'sum', profile: 'demo', plan: [{ tool: 'everything_get_sum', input: { a: 1, b: 2 } }] })
      ).json()) as {
        status: string;
        error: { code: string; retryable: boolean };
      };
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'mcp_unavailable', retryable: true } });
    } finally {
      await second.close();
    }
    // The CLI on the same data directory knows the tools from the kept listing: it lists them,
    // replays the run offline, and starts the server only when a run calls it.
    const servers = JSON.stringify([
      { name: 'everything', profile: 'demo', tools: ['get-sum'], transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    ]);
    const cli = (args: string[]) =>
      execNode(process.execPath, [join(root, 'src/cli/bin.mjs'), ...args, '--json', '--data-dir', dataDir], {
        cwd: root,
        env: { ...process.env, NO_COLOR: '1', CUGAR_MCP_SERVERS: servers, CUGAR_MCP_ALLOW: JSON.stringify({ demo: { commands: [process.execPath] } }) },
      });
    const tools = JSON.parse((await cli(['tools'])).stdout) as Array<{ name: string; mcpServer?: string }>;
    expect(tools.find((t) => t.name === 'everything_get_sum')).toMatchObject({ mcpServer: 'everything' });
    expect(JSON.parse((await cli(['replay', run.runId])).stdout)).toMatchObject({ ok: true });
    const ran = JSON.parse((await cli(['run', 'everything_get_sum(a=20, b=22)'])).stdout) as { outputs: Record<string, unknown> };
    expect(ran.outputs['step-0']).toMatchObject({ server: 'everything', content: [{ text: 'The sum of 20 and 22 is 42.' }] });
  }, 90_000);
});
