import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FetchFailedError,
  FetchLimitError,
  HashingEmbedder,
  InMemoryVectorBackend,
  MemoryManager,
  PolicyEnforcer,
  PolicyViolationError,
  RagIndex,
  RagRetriever,
  ToolRegistry,
  extractMainText,
  registerWebTools,
  summarizeExtractive,
  type ToolContext,
  type ToolDefinition,
} from '../../src/core/index.ts';
import { InMemoryMemoryStore } from '../../src/core/stores.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { linkedomParser } from '../../src/edge/linkedomParser.ts';
import { nodeTransport } from '../../src/edge/nodeFetch.ts';
import { savedPages, startFixtureServer, type FixtureServer } from '../fixtures/pages/fixtureServer.ts';

// internet_extract on Node against saved pages and traps served on loopback (allow-listed
// explicitly): the main text keeps the article and drops the boilerplate, the summary is made
// of the page's own sentences, and every trap ends in a typed error within its limit while
// the host keeps serving.

/** For each saved page: phrases of its main text, and boilerplate that must be gone. */
const EXPECTED: Record<string, { keep: string[]; drop: string[] }> = {
  'news-article': {
    keep: [
      'voted eight to three',
      'What changes for residents',
      'temporary footbridge opens near the library',
      'most important thing the council',
      'climate adaptation fund',
    ],
    drop: ['cookies', 'Sport', 'Related stories', 'Flood warnings issued', 'morning briefing', 'All rights reserved', 'TRACKING-SCRIPT-TEXT', 'font-family'],
  },
  'blog-post': {
    keep: ['eleven minutes', 'The three things that broke', 'Splitting the index into two files', 'forty seconds on a laptop'],
    drop: ['Archive', 'About me', 'Popular posts', 'Share on Mastodon', '12 comments', 'remote caching', 'Powered by'],
  },
  'docs-page': {
    keep: ['exponential backoff', "defineJob('send-invoice'", '- Select the dead-letter tab', 'fourteen days by default'],
    drop: ['Installation', 'Scheduled jobs', 'GitHub', 'CC BY 4.0', '← Defining jobs'],
  },
  recipe: {
    keep: ['Pearl barley gives it body', '- 150 grams of pearl barley, rinsed', '- Simmer with the lid half on', 'loosen it with a little water'],
    drop: ['ADVERTISEMENT', 'Shop', 'new recipe every week', 'Contact', 'Privacy'],
  },
  'forum-thread': {
    keep: ['My chain skips', 'Measure the chain first', 'barrel adjuster half a turn'],
    drop: ['Forum index', 'Log in', 'Similar threads', 'Best chain lube', 'Forum software'],
  },
  'wrapped-in-ads': {
    keep: ['After a gap of eleven years', 'Bicycles travel free', 'reviewed after the first winter'],
    drop: ['Rail Weekly', 'Book a hotel', 'Travel insurance'],
  },
  'link-farm': {
    keep: ['Composting turns kitchen scraps', 'damp as a wrung-out sponge'],
    drop: ['Resource one about gardening tools', 'Resource six'],
  },
};

const PROFILE = 'web';
let server: FixtureServer;
let tool: ToolDefinition;
let offline: ToolDefinition;
let memory: MemoryManager;
let retriever: RagRetriever;
const policy = new PolicyEnforcer({ [PROFILE]: { allowNetwork: true } });

function context(profile = PROFILE, signal = new AbortController().signal): ToolContext {
  return {
    profile,
    traceId: 'trace-1',
    runId: 'run-1',
    stepIndex: 0,
    signal,
    idempotencyKey: 'run-1:step-0',
    attempt: 1,
    secret: () => Promise.reject(new Error('no secrets here')),
  };
}

/** The orchestrator's path for one call: policy and schema, then the handler. */
async function call(definition: ToolDefinition, input: unknown, profile = PROFILE): Promise<Record<string, unknown>> {
  const parsed = policy.checkStep(profile, definition, input);
  return (await definition.handler(parsed, context(profile))) as Record<string, unknown>;
}

beforeAll(async () => {
  server = await startFixtureServer();
  const embedder = new HashingEmbedder({ dimension: 256 });
  const vectors = new InMemoryVectorBackend(256);
  await vectors.connect();
  memory = new MemoryManager({
    store: new InMemoryMemoryStore(),
    vectors,
    embedder,
    clock: steppingClock(Date.UTC(2026, 0, 1), 1000),
    ids: createSequentialIds('m'),
  });
  retriever = new RagRetriever(new RagIndex(vectors, embedder));
  const registry = new ToolRegistry();
  registerWebTools(
    registry,
    {
      retriever,
      memory,
      transportFor: (guard) => nodeTransport(guard),
      parseHtml: linkedomParser,
      networkAllowed: (profile) => policy.policyFor(profile).allowNetwork,
      settings: { allow: { cidrs: ['127.0.0.1/32'] }, timeoutMs: 1500, maxBytes: 1024 * 1024 },
    },
    PROFILE,
  );
  tool = registry.resolve(PROFILE, 'internet_extract');
  registerWebTools(registry, { retriever, transportFor: (guard) => nodeTransport(guard), parseHtml: linkedomParser }, 'offline');
  offline = registry.resolve('offline', 'internet_extract');
});
afterAll(() => server.close());

describe('main text extraction', () => {
  it.each(Object.keys(EXPECTED))('keeps the main text of %s and drops its boilerplate', async (name) => {
    const page = await extractMainText(savedPages()[name]!, linkedomParser);
    for (const phrase of EXPECTED[name]!.keep) expect(page.text).toContain(phrase);
    for (const phrase of EXPECTED[name]!.drop) expect(page.text).not.toContain(phrase);
  });

  it('gives empty text, not an error, for a page without content', async () => {
    for (const html of ['', '<html><head><script>x()</script></head><body><nav><a href="/">Home</a></nav></body></html>', 'just words, no markup']) {
      const page = await extractMainText(html, linkedomParser);
      expect(page.words).toBe(page.text === '' ? 0 : page.text.split(/\s+/).length);
      expect(page.text).not.toContain('Home');
    }
  });

  it('is deterministic and summarises with sentences of the page, best first by frequency and position', async () => {
    const html = savedPages()['news-article']!;
    const [a, b] = [await extractMainText(html, linkedomParser), await extractMainText(html, linkedomParser)];
    expect(a).toEqual(b);
    expect(a.title).toBe('City council approves river restoration plan | The Valley Ledger');
    const summary = summarizeExtractive(a.text, { count: 2, title: a.title });
    expect(summary.sentences).toHaveLength(2);
    for (const sentence of summary.sentences) expect(a.text).toContain(sentence);
    expect(summary.sentences[0]).toMatch(/^The city council voted eight to three/);
    expect(summarizeExtractive('')).toEqual({ summary: '', sentences: [] });
  });
});

describe('internet_extract', () => {
  it('fetches a page on an allow-listed address, returns its main text and summary, and stores it when asked', async () => {
    const out = await call(tool, { url: `${server.origin}/page/recipe`, sentences: 2, store: true });
    expect(out).toMatchObject({
      url: `${server.origin}/page/recipe`,
      title: 'Lemon barley soup recipe',
      contentType: 'text/html',
      truncated: false,
      redirects: [],
    });
    expect(out['text']).toContain('Pearl barley gives it body');
    expect(out['text']).not.toContain('ADVERTISEMENT');
    expect(String(out['summary']).length).toBeGreaterThan(40);
    expect(out['stored']).toBe('page:run-1:step-0');
    const recalled = await memory.semanticSearch(PROFILE, 'pearl barley lemon soup', 1);
    expect(recalled[0]?.id).toBe('page:run-1:step-0');
  });

  it('reads text/plain and decodes the declared charset', async () => {
    expect((await call(tool, { url: `${server.origin}/plain` }))['text']).toBe('Plain notes.\nThe kettle is descaled monthly.');
    expect((await call(tool, { url: `${server.origin}/latin1` }))['text']).toContain('Café crème');
  });

  it('cuts the text at maxChars and says so', async () => {
    const out = await call(tool, { url: `${server.origin}/page/news-article`, maxChars: 300 });
    expect(String(out['text'])).toHaveLength(300);
    expect(out['truncated']).toBe(true);
  });

  it('is refused in a profile without the network, by the policy and by the handler', async () => {
    await expect(call(tool, { url: `${server.origin}/page/recipe` }, 'offline')).rejects.toMatchObject({ code: 'network_not_allowed' });
    const before = server.connections();
    await expect(
      offline.handler({ url: `${server.origin}/page/recipe`, sentences: 3, maxChars: 1000, store: false }, context('offline')),
    ).rejects.toBeInstanceOf(PolicyViolationError);
    expect(server.connections()).toBe(before);
  });

  it('refuses invalid input with a validation error before fetching', async () => {
    await expect(call(tool, { url: '' })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(call(tool, { url: 'x'.repeat(9000) })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(call(tool, { url: `${server.origin}/page/recipe`, sentences: 0 })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  const traps: Array<[string, string, string, number]> = [
    ['a slow drip', '/drip', 'fetch_timeout', 3000],
    ['a huge body without a length', '/huge', 'response_too_large', 3000],
    ['a huge declared length', '/huge-declared', 'response_too_large', 1000],
    ['a binary content type', '/binary', 'content_type_refused', 1000],
    ['binary bytes declared as HTML', '/nul-html', 'content_type_refused', 1000],
    ['no content type', '/no-type', 'content_type_refused', 1000],
    ['deep nesting', '/bomb-deep', 'page_too_complex', 2000],
    ['an element with 50,000 attributes', '/bomb-attrs', 'page_too_complex', 2000],
    ['70,000 elements', '/bomb-wide', 'page_too_complex', 2000],
  ];
  it.each(traps)('stops %s with a typed error in bounded time', async (_name, path, code, withinMs) => {
    const started = performance.now();
    const error = await call(tool, { url: `${server.origin}${path}` }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FetchLimitError);
    expect(error).toMatchObject({ code, failureMode: 'RESOURCE' });
    expect(performance.now() - started).toBeLessThan(withinMs);
  });

  it('stops when the run is cancelled, without waiting for the time limit', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    const parsed = policy.checkStep(PROFILE, tool, { url: `${server.origin}/drip` });
    const error = await Promise.resolve(tool.handler(parsed, context(PROFILE, controller.signal))).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ code: 'fetch_failed', retryable: false });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('reports an error status as a typed failure, retryable only for server errors', async () => {
    const missing = await call(tool, { url: `${server.origin}/missing` }).catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(FetchFailedError);
    expect(missing).toMatchObject({ code: 'http_status', retryable: false, details: { status: 404 } });
  });

  it('keeps serving after the traps: the huge body was abandoned, and a normal page still comes back', async () => {
    expect(server.abandoned()).toBeGreaterThanOrEqual(2);
    const out = await call(tool, { url: `${server.origin}/page/docs-page` });
    expect(out['text']).toContain('exponential backoff');
  });
});
