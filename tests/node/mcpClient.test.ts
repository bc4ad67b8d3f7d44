import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InMemoryStore, Orchestrator, redactJournal, ToolRegistry, replay, staticSecrets, verifyJournal, type JournalEvent } from '../../src/core/index.ts';
import {
  boundedFetch,
  McpConnection,
  McpNotAllowedError,
  McpSchemaError,
  McpServerConfigSchema,
  McpToolError,
  McpUnavailableError,
  connectMcpServers,
  mcpPolicyEnforcer,
  mcpSettingsFromEnv,
  parseMcpAllow,
  parseMcpServers,
  registerMcpServer,
  registerMcpTools,
  stdioLauncher,
  toolParameters,
  type McpRegistration,
} from '../../src/mcp/index.ts';
import { EVERYTHING, ODD, startEverythingHttp, type HttpChild } from '../support/mcpFixtures.ts';

const everythingStdio = { name: 'everything', profile: 'demo', transport: { type: 'stdio' as const, command: process.execPath, args: [EVERYTHING, 'stdio'] } };
const allowNode = { network: false, commands: [process.execPath] };
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of cleanup.reverse()) await close().catch(() => undefined);
});

async function register(registry: ToolRegistry, config: Parameters<typeof registerMcpServer>[1], options: Parameters<typeof registerMcpServer>[2] = {}) {
  const registration = await registerMcpServer(registry, config, { stdio: stdioLauncher, allow: allowNode, ...options });
  cleanup.push(() => registration.close());
  return registration;
}

function orchestratorFor(registry: ToolRegistry, store = new InMemoryStore(), network = false) {
  return new Orchestrator({ registry, store, policy: mcpPolicyEnforcer(network ? { demo: { network: true, commands: [] } } : {}) });
}

describe('MCP client: tool schemas', () => {
  it('turns JSON Schemas into zod and refuses non-object, huge, deep and inexpressible ones with typed errors', () => {
    const schema = toolParameters({ type: 'object', properties: { n: { type: 'integer', minimum: 1 }, tag: { enum: ['a', 'b'] } }, required: ['n'] });
    expect(schema.parse({ n: 2, tag: 'a' })).toEqual({ n: 2, tag: 'a' });
    expect(schema.safeParse({ n: 0 }).success).toBe(false);
    expect(schema.safeParse({ n: 1.5 }).success).toBe(false);
    expect(schema.safeParse({ n: 1, tag: 'c' }).success).toBe(false);
    expect(schema.safeParse({}).success).toBe(false);
    // An identified schema stays an object schema (not a $ref into zod's global registry).
    expect(z.toJSONSchema(toolParameters({ $id: 'https://example.com/t', type: 'object', properties: { a: { type: 'string' } } }))).toMatchObject({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    const refused = (input: unknown) => {
      try {
        toolParameters(input);
      } catch (error) {
        expect(error).toBeInstanceOf(McpSchemaError);
        return (error as McpSchemaError).code;
      }
      return 'accepted';
    };
    expect(refused({ type: 'string' })).toBe('mcp_schema_invalid');
    expect(refused({ type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(70_000) } } })).toBe('mcp_schema_too_large');
    let deep: Record<string, unknown> = { type: 'object' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { x: deep } };
    expect(refused(deep)).toBe('mcp_schema_too_large');
    expect(refused({ type: 'object', if: { required: ['a'] }, then: { required: ['b'] } })).toBe('mcp_schema_invalid');
    expect(refused({ type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } })).toBe('mcp_schema_invalid');
  });

  it('registers the usable tools of a server and reports each refused schema', async () => {
    const registry = new ToolRegistry();
    const odd = await register(registry, { name: 'odd', profile: 'demo', transport: { type: 'stdio', command: process.execPath, args: [ODD, 'schemas'] } });
    expect(odd.tools).toEqual(['odd_ok_tool']);
    expect(Object.fromEntries(odd.rejected.map((r) => [r.tool, r.error.code]))).toEqual({
      huge: 'mcp_schema_too_large',
      deep: 'mcp_schema_too_large',
      'not-object': 'mcp_schema_invalid',
      conditional: 'mcp_schema_invalid',
      'bad-ref': 'mcp_schema_invalid',
    });
    expect(odd.rejected.every((r) => r.error instanceof McpSchemaError)).toBe(true);
  });
});

describe('MCP client: the HTTP fetch', () => {
  it('stops a response body at its limit with a typed error, and declines the standalone GET stream', async () => {
    let asked = 0;
    const server = async () => {
      asked++;
      return new Response('x'.repeat(100), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const bounded = boundedFetch(64, server);
    await expect((await bounded('http://127.0.0.1/mcp', { method: 'POST' })).text()).rejects.toMatchObject({ code: 'mcp_result_too_large' });
    expect(await (await boundedFetch(1000, server)('http://127.0.0.1/mcp', { method: 'POST' })).text()).toHaveLength(100);
    const get = await bounded('http://127.0.0.1/mcp', { method: 'GET' });
    expect(get.status).toBe(405);
    expect(asked).toBe(2);
  });
});

describe('MCP client: configuration and permissions', () => {
  it('parses CUGAR_MCP_SERVERS and CUGAR_MCP_ALLOW, refusing bad JSON, unknown keys and duplicate names with typed errors', () => {
    const servers = parseMcpServers(
      JSON.stringify([everythingStdio, { name: 'remote', profile: 'ops', transport: { type: 'http', url: 'http://127.0.0.1:1/mcp' } }]),
    );
    expect(servers.map((s) => [s.name, s.transport.type, s.timeoutMs])).toEqual([
      ['everything', 'stdio', 30_000],
      ['remote', 'http', 30_000],
    ]);
    expect(parseMcpServers(undefined)).toEqual([]);
    expect(() => parseMcpServers('[{')).toThrow(/must be JSON/);
    expect(() => parseMcpServers(JSON.stringify([{ ...everythingStdio, colour: 'red' }]))).toThrow(/CUGAR_MCP_SERVERS is invalid/);
    expect(() => parseMcpServers(JSON.stringify([everythingStdio, everythingStdio]))).toThrow(/twice/);
    expect(() => parseMcpServers(JSON.stringify([{ ...everythingStdio, transport: { type: 'http', url: 'file:///etc/passwd' } }]))).toThrow(/invalid/);
    expect(parseMcpAllow('{"demo":{"network":true}}')).toEqual({ demo: { network: true, commands: [] } });
    expect(() => parseMcpAllow('{"demo":{"network":"yes"}}')).toThrow(/CUGAR_MCP_ALLOW is invalid/);
  });

  it('refuses a stdio command the profile does not list, and an HTTP server without the network, before starting anything', async () => {
    const registry = new ToolRegistry();
    await expect(registerMcpServer(registry, everythingStdio, { stdio: stdioLauncher, allow: { network: true, commands: ['npx'] } })).rejects.toBeInstanceOf(
      McpNotAllowedError,
    );
    await expect(registerMcpServer(registry, everythingStdio, { stdio: stdioLauncher })).rejects.toMatchObject({ code: 'mcp_command_not_allowed' });
    const http = { name: 'remote', profile: 'demo', transport: { type: 'http' as const, url: 'http://127.0.0.1:9/mcp' } };
    await expect(registerMcpServer(registry, http, { allow: { network: false, commands: [] } })).rejects.toMatchObject({ code: 'network_not_allowed' });
    await expect(registerMcpServer(registry, everythingStdio, { allow: allowNode })).rejects.toMatchObject({ code: 'mcp_stdio_unsupported' });
    expect(registry.profiles()).toEqual([]);
  });
});

describe('MCP client: the host connects every configured server', () => {
  it('registers the servers it can reach and logs the ones it refuses or cannot reach, without failing', async () => {
    const registry = new ToolRegistry();
    const lines: string[] = [];
    const settings = mcpSettingsFromEnv({
      CUGAR_MCP_SERVERS: JSON.stringify([
        { ...everythingStdio, tools: ['echo'] },
        { name: 'denied', profile: 'ops', transport: { type: 'stdio', command: 'sh', args: ['-c', 'exit 1'] } },
        { name: 'down', profile: 'demo', connectTimeoutMs: 2000, transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } },
      ]),
      CUGAR_MCP_ALLOW: JSON.stringify({ demo: { network: true, commands: [process.execPath] } }),
    });
    expect(mcpPolicyEnforcer(settings.allow).policyFor('demo').allowNetwork).toBe(true);
    expect(mcpPolicyEnforcer(settings.allow).policyFor('ops').allowNetwork).toBe(false);
    const registrations = await connectMcpServers(registry, settings, { stdio: stdioLauncher, log: (line) => lines.push(line) });
    cleanup.push(...registrations.map((r) => () => r.close()));
    expect(registrations.map((r) => r.server)).toEqual(['everything']);
    expect(registry.list('demo').map((t) => t.name)).toEqual(['everything_echo']);
    // The server's own stderr and transport errors are logged too; the decisions are these lines.
    expect(lines.filter((line) => /tool\(s\) in profile|left out/.test(line))).toEqual([
      'MCP server everything: 1 tool(s) in profile "demo"',
      expect.stringMatching(/^MCP server denied left out: mcp_command_not_allowed: /),
      expect.stringMatching(/^MCP server down left out: mcp_unavailable: /),
    ]);
  });
});

describe('MCP client against the reference server over stdio', () => {
  let registration: McpRegistration;
  const registry = new ToolRegistry();

  it('lists its tools into the profile, marked with the server, and runs a call through the orchestrator into the journal', async () => {
    registration = await register(registry, { ...everythingStdio, requireApproval: ['get-env'] });
    expect(registration.tools).toEqual(expect.arrayContaining(['everything_echo', 'everything_get_sum', 'everything_get_structured_content']));
    const sum = registry.list('demo').find((t) => t.name === 'everything_get_sum')!;
    expect(sum).toMatchObject({ mcpServer: 'everything', capabilities: ['mcp', 'mcp:everything'], allowNetwork: false, requiresApproval: false });
    expect(sum.inputSchema).toMatchObject({ type: 'object', required: ['a', 'b'] });
    expect(registry.resolve('demo', 'everything_get_env').requiresApproval).toBe(true);

    const store = new InMemoryStore();
    const outcome = await orchestratorFor(registry, store).start('add over MCP', 'demo', { plan: [{ tool: 'everything_get_sum', input: { a: 2, b: 40 } }] });
    expect(outcome.status).toBe('completed');
    expect(outcome.outputs['step-0']).toEqual({ server: 'everything', tool: 'get-sum', content: [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }] });
    const journal = await store.readJournal(outcome.runId);
    expect(verifyJournal(journal).ok).toBe(true);
    // The journal names the server and its tool beside the result.
    const complete = journal.find((e) => e.type === 'tool_call_complete');
    expect(complete?.type === 'tool_call_complete' && complete.data.output).toMatchObject({ server: 'everything', tool: 'get-sum' });
  });

  it('validates inputs against the converted schema before the server is called', async () => {
    const outcome = await orchestratorFor(registry).start('bad input', 'demo', { plan: [{ tool: 'everything_get_sum', input: { a: 'two', b: 1 } }] });
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatchObject({ code: 'invalid_input' });
  });

  it('returns structured content and fails with a typed error when the server refuses arguments', async () => {
    const structured = await registration.connection.callTool('get-structured-content', { location: 'New York' });
    expect(structured.structuredContent).toMatchObject({ temperature: expect.any(Number) });
    const refused = await registration.connection.callTool('get-sum', { a: 'x' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpToolError);
    expect((refused as McpToolError).retryable).toBe(false);
  });

  it('hands a stdio server its env from the secrets port and scrubs the values from what it answers', async () => {
    const secret = 'env-secret-value-93be1f04c8';
    const registry = new ToolRegistry();
    const withEnv = await register(
      registry,
      {
        ...everythingStdio,
        name: 'envy',
        tools: ['get-env'],
        transport: { ...everythingStdio.transport, env: { SERVICE_KEY: '${SERVICE_KEY}', PLAIN: 'visible' } },
      },
      { secrets: staticSecrets({ SERVICE_KEY: secret }) },
    );
    const store = new InMemoryStore();
    const outcome = await orchestratorFor(registry, store).start('env', 'demo', { plan: [{ tool: 'envy_get_env', input: {} }] });
    expect(outcome.status).toBe('completed');
    const text = JSON.stringify(await store.readJournal(outcome.runId));
    // The server saw both values (it prints its environment); the journal keeps the plain one only.
    expect(text).toContain('\\"SERVICE_KEY\\": \\"[REDACTED]\\"');
    expect(text).toContain('\\"PLAIN\\": \\"visible\\"');
    expect(text).not.toContain(secret);
    await withEnv.close();
  });

  it('fails an answer larger than maxResultBytes with a typed error', async () => {
    const small = new ToolRegistry();
    const bounded = await register(small, { ...everythingStdio, name: 'small', maxResultBytes: 1024 });
    expect(await bounded.connection.callTool('echo', { message: 'short' })).toMatchObject({ content: [{ type: 'text', text: 'Echo: short' }] });
    await expect(bounded.connection.callTool('echo', { message: 'x'.repeat(5000) })).rejects.toMatchObject({ code: 'mcp_result_too_large', retryable: false });
  });

  it('replays a recorded call with the server gone, from the registry and from a kept listing', async () => {
    const store = new InMemoryStore();
    const outcome = await orchestratorFor(registry, store).start('echo over MCP', 'demo', {
      plan: [
        { tool: 'everything_echo', input: { message: 'recorded' } },
        { tool: 'everything_get_sum', input: { a: 1, b: 2 } },
      ],
    });
    expect(outcome.status).toBe('completed');
    const journal: JournalEvent[] = await store.readJournal(outcome.runId);
    await registration.close();
    // The server is gone: any call would fail.
    await expect(registration.connection.callTool('echo', { message: 'x' })).rejects.toBeInstanceOf(McpUnavailableError);
    expect((await replay(journal, registry)).ok).toBe(true);
    // A new process: the tools come from the listing kept at registration, and the server's command no longer exists.
    const offline = new ToolRegistry();
    const gone = McpServerConfigSchema.parse({ ...everythingStdio, transport: { type: 'stdio', command: '/nonexistent/mcp-server' } });
    const { tools } = registerMcpTools(offline, gone, registration.listing, new McpConnection(gone, { stdio: stdioLauncher }));
    expect(tools).toEqual(registration.tools);
    const replayed = await replay(journal, offline);
    expect(replayed).toMatchObject({ ok: true, events: journal.length });
  });
});

describe('MCP client: servers that crash, hang or talk nonsense', () => {
  it('turns a crash in the middle of a call into a retryable error, and the next call starts the server again', async () => {
    const registry = new ToolRegistry();
    const launched: StdioClientTransport[] = [];
    const everything = await register(
      registry,
      { ...everythingStdio, name: 'crashy' },
      {
        stdio: (server, log) => {
          const transport = stdioLauncher(server, log) as StdioClientTransport;
          launched.push(transport);
          return transport;
        },
      },
    );
    const running = everything.connection.callTool('trigger-long-running-operation', { duration: 5, steps: 5 }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Kill the server's process in the middle of the call.
    expect(launched).toHaveLength(1);
    process.kill(launched[0]!.pid!, 'SIGKILL');
    const error = await running;
    expect(error).toBeInstanceOf(McpUnavailableError);
    expect(error).toMatchObject({ retryable: true, failureMode: 'RESOURCE' });
    expect(await everything.connection.callTool('get-sum', { a: 1, b: 1 })).toMatchObject({ content: [{ text: 'The sum of 1 and 1 is 2.' }] });
    expect(launched).toHaveLength(2);
  });

  it('retries a crashed call through the orchestrator and records each attempt', async () => {
    const registry = new ToolRegistry();
    await register(registry, { name: 'odd', profile: 'demo', transport: { type: 'stdio', command: process.execPath, args: [ODD, 'crash'] } });
    const store = new InMemoryStore();
    const started = Date.now();
    const outcome = await new Orchestrator({ registry, store, retry: { maxAttempts: 2, baseDelay: 10, maxDelay: 20 } }).start('crash', 'demo', {
      plan: [{ tool: 'odd_ok_tool', input: { n: 1 } }],
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(outcome.status).toBe('failed');
    const errors = (await store.readJournal(outcome.runId)).filter((e) => e.type === 'tool_call_error');
    expect(errors.map((e) => e.type === 'tool_call_error' && [e.data.attempt, e.data.error.code, e.data.error.retryable, e.data.final])).toEqual([
      [1, 'mcp_connection_closed', true, false],
      [2, 'mcp_connection_closed', true, true],
    ]);
  });

  it('bounds a server that never answers a call, and one that never starts, by their timeouts', async () => {
    const registry = new ToolRegistry();
    const hang = await register(registry, {
      name: 'hang',
      profile: 'demo',
      timeoutMs: 300,
      transport: { type: 'stdio', command: process.execPath, args: [ODD, 'hang'] },
    });
    const started = Date.now();
    await expect(hang.connection.callTool('ok-tool', { n: 1 })).rejects.toMatchObject({ code: 'mcp_timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(5000);
    const silent = {
      name: 'silent',
      profile: 'demo',
      connectTimeoutMs: 300,
      transport: { type: 'stdio' as const, command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
    };
    await expect(registerMcpServer(registry, silent, { stdio: stdioLauncher, allow: allowNode })).rejects.toMatchObject({ code: 'mcp_timeout' });
    const noise = {
      name: 'noise',
      profile: 'demo',
      connectTimeoutMs: 500,
      transport: { type: 'stdio' as const, command: process.execPath, args: [ODD, 'malformed'] },
    };
    await expect(registerMcpServer(registry, noise, { stdio: stdioLauncher, allow: allowNode })).rejects.toBeInstanceOf(McpUnavailableError);
    const bad = await register(registry, { name: 'bad', profile: 'demo', transport: { type: 'stdio', command: process.execPath, args: [ODD, 'badresult'] } });
    await expect(bad.connection.callTool('ok-tool', { n: 1 })).rejects.toMatchObject({ code: 'mcp_malformed_result', retryable: false });
    const missing = { name: 'missing', profile: 'demo', transport: { type: 'stdio' as const, command: '/nonexistent/mcp-server' } };
    await expect(
      registerMcpServer(registry, missing, { stdio: stdioLauncher, allow: { network: false, commands: ['/nonexistent/mcp-server'] } }),
    ).rejects.toBeInstanceOf(McpUnavailableError);
  });
});

describe('MCP client against the reference server over Streamable HTTP (loopback)', () => {
  let server: HttpChild;
  let journalOfKilled: JournalEvent[] = [];
  let registryOfKilled = new ToolRegistry();
  const token = 'mcp-header-secret-7f3a9c2e41';

  it("sends headers filled from the secrets port, needs the profile's network permission, and keeps the secret out of the journal", async () => {
    server = await startEverythingHttp({ MCP_EXPECT_AUTHORIZATION: `Bearer ${token}` });
    cleanup.push(() => server.kill());
    const config = {
      name: 'remote',
      profile: 'demo',
      transport: { type: 'http' as const, url: server.url, headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' } },
    };
    const registry = new ToolRegistry();
    // A wrong secret: the server refuses, and registration fails with a typed error.
    await expect(
      registerMcpServer(new ToolRegistry(), config, {
        allow: { network: true, commands: [] },
        secrets: staticSecrets({ REMOTE_TOKEN: 'not-the-right-token-1' }),
      }),
    ).rejects.toBeInstanceOf(McpUnavailableError);
    await expect(registerMcpServer(new ToolRegistry(), config, { allow: { network: true, commands: [] } })).rejects.toMatchObject({ code: 'missing_secret' });
    const remote = await register(registry, config, { allow: { network: true, commands: [] }, secrets: staticSecrets({ REMOTE_TOKEN: token }) });
    expect(registry.resolve('demo', 'remote_get_sum')).toMatchObject({ allowNetwork: true, mcpServer: 'remote' });

    // A profile without the network permission refuses the call before it reaches the server.
    const refused = await orchestratorFor(registry).start('sum', 'demo', { plan: [{ tool: 'remote_get_sum', input: { a: 1, b: 2 } }] });
    expect(refused.error).toMatchObject({ code: 'network_not_allowed' });

    const store = new InMemoryStore();
    const sum = await orchestratorFor(registry, store, true).start('sum', 'demo', { plan: [{ tool: 'remote_get_sum', input: { a: 1, b: 2 } }] });
    expect(sum.status).toBe('completed');
    expect(JSON.stringify(await store.readJournal(sum.runId))).not.toContain(token);
    // A server that sends the header's value back: the result is scrubbed before it is recorded,
    // and the redacted journal (what the API and MCP resources serve) holds it nowhere.
    const echoed = await orchestratorFor(registry, store, true).start('echo', 'demo', {
      plan: [{ tool: 'remote_echo', input: { message: `the token is ${token}` } }],
    });
    const journal = await store.readJournal(echoed.runId);
    const complete = journal.find((e) => e.type === 'tool_call_complete');
    expect(complete?.type === 'tool_call_complete' && complete.data.output).toMatchObject({ content: [{ text: 'Echo: the token is [REDACTED]' }] });
    expect(JSON.stringify(redactJournal(journal))).not.toContain(token);
    await remote.close();
  });

  it('turns a killed HTTP server into a retryable error', async () => {
    const http = await startEverythingHttp();
    cleanup.push(() => http.kill());
    const registry = new ToolRegistry();
    const remote = await register(
      registry,
      { name: 'remote', profile: 'demo', transport: { type: 'http', url: http.url } },
      { allow: { network: true, commands: [] } },
    );
    const store = new InMemoryStore();
    const outcome = await orchestratorFor(registry, store, true).start('sum', 'demo', { plan: [{ tool: 'remote_get_sum', input: { a: 20, b: 22 } }] });
    expect(outcome.outputs['step-0']).toMatchObject({ server: 'remote', tool: 'get-sum', content: [{ text: 'The sum of 20 and 22 is 42.' }] });
    await http.kill();
    const error = await remote.connection.callTool('get-sum', { a: 1, b: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpUnavailableError);
    expect(error).toMatchObject({ retryable: true });
    journalOfKilled = await store.readJournal(outcome.runId);
    registryOfKilled = registry;
  });

  // HTTP MCP tools declare allowNetwork: replay runs under the profile policies the run had.
  it('replays a recorded HTTP call with the server gone', async () => {
    const replayed = await replay(journalOfKilled, registryOfKilled, { policy: mcpPolicyEnforcer({ demo: { network: true, commands: [] } }) });
    expect(replayed.ok ? 'ok' : replayed.divergence).toBe('ok');
  });
});
