import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FetchFailedError,
  HashingEmbedder,
  InMemoryVectorBackend,
  PolicyEnforcer,
  RagIndex,
  RagLoader,
  RagRetriever,
  ToolRegistry,
  ValidationError,
  createEchoTool,
  parseConfig,
  registerWebTools,
  webSettingsFromEnv,
  type ToolContext,
  type ToolDefinition,
} from '../../src/core/index.ts';
import { InMemoryStore } from '../../src/core/stores.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { linkedomParser } from '../../src/edge/linkedomParser.ts';
import { nodeTransport } from '../../src/edge/nodeFetch.ts';
import { registerHostWebTools } from '../../src/edge/webToolsSetup.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/pages/fixtureServer.ts';

// web_search over the profile's corpus by default and over a SearXNG-shaped JSON API on
// loopback when the profile allows the network; the echo generator; and the web tools as the
// hosts register them on a runtime, run by the orchestrator under the profile's policy.

const policy = new PolicyEnforcer({ online: { allowNetwork: true } });
let server: FixtureServer;
let retriever: RagRetriever;

function context(profile: string): ToolContext {
  return {
    profile,
    traceId: 't',
    runId: 'r',
    stepIndex: 0,
    signal: new AbortController().signal,
    idempotencyKey: 'r:s',
    attempt: 1,
    secret: () => Promise.reject(new Error('none')),
  };
}

async function call(definition: ToolDefinition, input: unknown, profile: string): Promise<{ source: string; results: Array<Record<string, unknown>> }> {
  return (await definition.handler(policy.checkStep(profile, definition, input), context(profile))) as {
    source: string;
    results: Array<Record<string, unknown>>;
  };
}

/** `web_search` of a registry whose SearXNG endpoint is `endpoint`, in both profiles. */
function searchTool(endpoint: string | undefined, profile: string): ToolDefinition {
  const registry = new ToolRegistry();
  registerWebTools(
    registry,
    {
      retriever,
      transportFor: (guard) => nodeTransport(guard),
      parseHtml: linkedomParser,
      networkAllowed: (name) => policy.policyFor(name).allowNetwork,
      settings: { ...(endpoint ? { searxngUrl: endpoint } : {}), maxResults: 5, timeoutMs: 2000 },
    },
    profile,
  );
  return registry.resolve(profile, 'web_search');
}

beforeAll(async () => {
  server = await startFixtureServer();
  const embedder = new HashingEmbedder({ dimension: 256 });
  const vectors = new InMemoryVectorBackend(256);
  await vectors.connect();
  const index = new RagIndex(vectors, embedder);
  const documents = [
    { path: 'notes/rivers.md', text: 'River restoration replaces concrete channels with planted floodplains that slow the water in storms.' },
    { path: 'notes/bread.md', text: 'Sourdough needs a lively starter, a long cold proof and a very hot oven.' },
  ];
  for (const profile of ['offline', 'online']) await new RagLoader(index).ingest(profile, documents);
  retriever = new RagRetriever(index);
});
afterAll(() => server.close());

describe('web_search', () => {
  it('searches the profile’s corpus by default: titles, paths, snippets and scores', async () => {
    const out = await call(searchTool(server.origin, 'offline'), { query: 'river floodplain', k: 1 }, 'offline');
    expect(out.source).toBe('corpus');
    expect(out.results).toEqual([{ title: 'rivers.md', path: 'notes/rivers.md', snippet: expect.stringContaining('floodplains'), score: expect.any(Number) }]);
  });

  it('asks SearXNG when the profile allows the network and an endpoint is configured, keeping only http(s) results', async () => {
    const before = server.paths.length;
    const out = await call(searchTool(server.origin, 'online'), { query: 'river restoration' }, 'online');
    expect(server.paths.slice(before)).toEqual(['/search']);
    expect(out).toEqual({
      source: 'searxng',
      query: 'river restoration',
      results: [
        { title: 'Rivers and river restoration', url: 'https://example.org/rivers', snippet: 'How rivers are restored.', score: 4.5 },
        { title: 'Floodplains', url: 'https://example.com/floodplain', snippet: 'Floodplains hold water.', score: 2.25 },
      ],
    });
    expect((await call(searchTool(server.origin, 'online'), { query: 'river', k: 1 }, 'online')).results).toHaveLength(1);
    expect((await call(searchTool(server.origin, 'online'), { query: 'river', source: 'corpus' }, 'online')).source).toBe('corpus');
  });

  it('stays on the corpus in auto mode without the network, and refuses the web explicitly', async () => {
    const before = server.connections();
    expect((await call(searchTool(server.origin, 'offline'), { query: 'sourdough' }, 'offline')).source).toBe('corpus');
    await expect(call(searchTool(server.origin, 'offline'), { query: 'sourdough', source: 'web' }, 'offline')).rejects.toMatchObject({
      code: 'network_not_allowed',
    });
    expect(server.connections()).toBe(before);
    await expect(call(searchTool(undefined, 'online'), { query: 'x', source: 'web' }, 'online')).rejects.toMatchObject({ code: 'search_not_configured' });
  });

  it.each([
    ['an answer without a valid results list', '/broken'],
    ['an answer that is not JSON', '/notjson'],
    ['a 503', '/down'],
    ['an endpoint nobody listens on', 'http://127.0.0.1:9'],
  ])('reports %s as search_failed', async (_name, endpoint) => {
    const error = await call(searchTool(endpoint.startsWith('/') ? `${server.origin}${endpoint}` : endpoint, 'online'), { query: 'q' }, 'online').catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ code: 'search_failed' });
  });

  it('validates its settings and inputs', async () => {
    expect(() => registerWebTools(new ToolRegistry(), { retriever, parseHtml: linkedomParser, settings: { searxngUrl: 'ftp://x' } })).toThrow(ValidationError);
    expect(webSettingsFromEnv({ CUGAR_SEARXNG_URL: 'http://127.0.0.1:8888', CUGAR_NET_ALLOW: '127.0.0.1/32, intranet.example ,::1' })).toMatchObject({
      searxngUrl: 'http://127.0.0.1:8888',
      allow: { hosts: ['intranet.example'], cidrs: ['127.0.0.1/32', '::1'] },
    });
    expect(() => webSettingsFromEnv({ CUGAR_FETCH_TIMEOUT_MS: 'soon' })).toThrow(ValidationError);
    await expect(call(searchTool(undefined, 'offline'), { query: '   ' }, 'offline')).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('createEchoTool', () => {
  it('generates a prefixed echo tool and refuses a bad prefix', async () => {
    const registry = new ToolRegistry();
    const { name, spec } = createEchoTool('support');
    registry.register('demo', name, spec);
    const echo = registry.resolve('demo', 'support_echo');
    expect(await echo.handler(policy.checkStep('demo', echo, { message: 'hello' }), context('demo'))).toBe('support: hello');
    expect(echo).toMatchObject({ idempotent: true, allowNetwork: false, capabilities: ['text'] });
    expect(() => createEchoTool('Bad Prefix')).toThrow(ValidationError);
  });
});

describe('a host runtime with web tools', () => {
  it('registers both tools, lists their permissions, and runs internet_extract only in a profile that allows the network', async () => {
    const config = parseConfig({}).config;
    const runtime = await createRuntime(new InMemoryStore(), config, { policy: new PolicyEnforcer({ [config.defaultProfile]: { allowNetwork: true } }) });
    expect(registerHostWebTools(runtime, (guard) => nodeTransport(guard), { allow: { cidrs: ['127.0.0.1/32'] } })).toEqual(['internet_extract', 'web_search']);
    const listed = runtime.registry.list(config.defaultProfile).filter((tool) => tool.name === 'web_search' || tool.name === 'internet_extract');
    expect(listed.map(({ name, allowNetwork, capabilities }) => ({ name, allowNetwork, capabilities }))).toEqual([
      { name: 'internet_extract', allowNetwork: true, capabilities: ['net:http', 'text'] },
      { name: 'web_search', allowNetwork: false, capabilities: ['search'] },
    ]);
    const done = await runtime.orchestrator.start(`internet_extract(url="${server.origin}/page/blog-post")`, config.defaultProfile);
    expect(done.status).toBe('completed');
    expect(JSON.stringify(done.outputs)).toContain('incremental compilation');

    const closed = await createRuntime(new InMemoryStore(), config);
    registerHostWebTools(closed, (guard) => nodeTransport(guard), { allow: { cidrs: ['127.0.0.1/32'] } });
    const before = server.connections();
    const refused = await closed.orchestrator.start(`internet_extract(url="${server.origin}/page/blog-post")`, config.defaultProfile);
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatchObject({ code: 'network_not_allowed' });
    expect(server.connections()).toBe(before);
  });
});
