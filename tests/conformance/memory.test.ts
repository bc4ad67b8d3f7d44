import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HashingEmbedder,
  InMemoryVectorBackend,
  MemoryManager,
  NotFoundError,
  RagIndex,
  RagLoader,
  RagRetriever,
  ToolRegistry,
  ValidationError,
  Orchestrator,
  chunkText,
  extractText,
  htmlToText,
  registerMemoryTools,
} from '../../src/core/index.ts';
import { InMemoryMemoryStore } from '../../src/core/stores.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';

async function setup() {
  const embedder = new HashingEmbedder({ dimension: 256 });
  const vectors = new InMemoryVectorBackend(256);
  await vectors.connect();
  const memory = new MemoryManager({
    store: new InMemoryMemoryStore(),
    vectors,
    embedder,
    clock: steppingClock(Date.UTC(2026, 0, 1), 1000),
    ids: createSequentialIds('m'),
  });
  const index = new RagIndex(vectors, embedder);
  return { embedder, vectors, memory, index, loader: new RagLoader(index, { size: 300, overlap: 60 }), retriever: new RagRetriever(index) };
}

describe('MemoryManager', () => {
  it('stores namespaced facts with UTC timestamps and reads them newest first', async () => {
    const { memory } = await setup();
    await memory.storeFact('alice', 'preferences', { theme: 'dark' }, { key: 'ui' });
    await memory.storeFact('alice', 'preferences', { theme: 'light' }, { key: 'ui' });
    await memory.storeFact('alice', 'contacts', 'bob@example.com');
    expect((await memory.latest('alice', 'preferences', 'ui'))!.value).toEqual({ theme: 'light' });
    expect((await memory.query('alice', 'preferences')).map((f) => f.value)).toEqual([{ theme: 'light' }, { theme: 'dark' }]);
    expect((await memory.query('alice', 'contacts', { contains: 'BOB' })).length).toBe(1);
    const recent = await memory.recallRecent('alice', { limit: 2 });
    expect(recent.map((f) => f.namespace)).toEqual(['contacts', 'preferences']);
    expect(recent[0]!.timestamp).toBe('2026-01-01T00:00:02.000Z');
    expect(await memory.namespaces('alice')).toEqual(['contacts', 'preferences']);
  });

  it('never lets a read cross profiles', async () => {
    const { memory } = await setup();
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ profile: fc.constantFrom('p1', 'p2', 'p3'), text: fc.constantFrom('invoice due dates', 'garden tomatoes', 'server outage report') }),
          { minLength: 1, maxLength: 12 },
        ),
        async (writes) => {
          const fresh = (await setup()).memory;
          for (const [i, w] of writes.entries()) {
            await fresh.storeFact(w.profile, 'notes', w.text, { key: String(i) });
            await fresh.storeText(w.profile, `${w.text} ${i}`, { owner: w.profile });
          }
          for (const profile of ['p1', 'p2', 'p3']) {
            const hits = await fresh.semanticSearch(profile, 'invoice garden server', 20);
            expect(hits.every((h) => h.metadata['owner'] === profile)).toBe(true);
            const facts = writes.some((w) => w.profile === profile) ? await fresh.query(profile, 'notes') : [];
            expect(facts.every((f) => f.profile === profile)).toBe(true);
            expect(facts.length).toBe(writes.filter((w) => w.profile === profile).length);
          }
        },
      ),
      { numRuns: 30 },
    );
    await expect(memory.query('alice', 'nothing-here')).rejects.toBeInstanceOf(NotFoundError);
    await expect(memory.query('alice', 'Bad Namespace')).rejects.toBeInstanceOf(ValidationError);
  });

  it('finds remembered text by meaning and round-trips its state as portable JSON', async () => {
    const { memory } = await setup();
    await memory.storeText('alice', 'Invoices are due within thirty days of issue.');
    await memory.storeText('alice', 'The office plants need water on Fridays.');
    await memory.storeFact('alice', 'preferences', { currency: 'EUR' });
    const [best] = await memory.semanticSearch('alice', 'when are invoices due');
    expect(best!.text).toContain('Invoices');
    const state = JSON.parse(JSON.stringify(await memory.exportState('alice')));
    const other = (await setup()).memory;
    expect(await other.importState(state, 'bob')).toEqual({ facts: 1, vectors: 2 });
    expect((await other.semanticSearch('bob', 'when are invoices due'))[0]!.text).toContain('Invoices');
    expect((await other.latest('bob', 'preferences'))!.value).toEqual({ currency: 'EUR' });
    await expect(other.importState({ ...state, vectors: [{ id: 'x', vector: [1, 2], metadata: {} }] })).rejects.toMatchObject({ code: 'dimension_mismatch' });
    await expect(other.importState({ format: 'nope' })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('RAG', () => {
  it('chunks along paragraphs and sentences with overlap, covering all the text', () => {
    const text = Array.from({ length: 12 }, (_, p) => Array.from({ length: 4 }, (_, s) => `Paragraph ${p} sentence ${s} has some words in it.`).join(' ')).join(
      '\n\n',
    );
    const chunks = chunkText(text, { size: 200, overlap: 50 });
    expect(chunks.length).toBeGreaterThan(6);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(200);
      expect(text.slice(chunk.offset, chunk.offset + chunk.text.length)).toBe(chunk.text);
    }
    for (let p = 0; p < 12; p++) for (let s = 0; s < 4; s++) expect(chunks.some((c) => c.text.includes(`Paragraph ${p} sentence ${s} `))).toBe(true);
    // Consecutive chunks share their boundary sentence.
    expect(chunks.slice(1).some((c, i) => c.offset < chunks[i]!.offset + chunks[i]!.text.length)).toBe(true);
    expect(() => chunkText(text, { size: 100, overlap: 100 })).toThrow(ValidationError);
  });

  it('extracts text from HTML without a DOM and from JSON', () => {
    const html =
      '<!doctype html><html><head><title>t</title><style>p{color:red}</style></head><body><h1>Tea &amp; Coffee</h1><script>alert(1)</script><p>Caf&eacute; &lt;menu&gt; &#8364;3</p><ul><li>one</li><li>two</li></ul></body></html>';
    expect(htmlToText(html)).toBe('Tea & Coffee\n\nCafé <menu> €3\n\none\n\ntwo');
    expect(extractText('a.json', '{"term":{"profile":"a set of tools"},"n":[1,"x"]}')).toBe('term.profile: a set of tools\n\nn[0]: 1\n\nn[1]: x');
  });

  it('refuses empty, binary, oversized and unknown documents, changing nothing', async () => {
    const { loader, vectors } = await setup();
    await loader.ingest('docs', [{ path: 'keep.md', text: 'A document that stays.' }]);
    const bad = [
      [{ path: 'empty.txt', text: '   \n ' }, 'empty_document'],
      [{ path: 'bin.txt', text: 'PK\u0003\u0004\u0000\u0000binary' }, 'binary_document'],
      [{ path: 'huge.txt', text: 'a'.repeat(50 * 1024 * 1024) }, 'document_too_large'],
      [{ path: 'image.png', text: 'text' }, 'unsupported_document'],
      [{ path: 'broken.json', text: '{"a":' }, 'invalid_document'],
    ] as const;
    for (const [doc, code] of bad) {
      await expect(loader.ingest('docs', [{ path: 'fine.md', text: 'This one is fine.' }, doc])).rejects.toMatchObject({ code });
    }
    expect((await vectors.list('docs')).map((r) => r.id)).toEqual(['keep.md#0']);
    expect(() => new RagIndex({ dimension: 256 } as never, new HashingEmbedder())).toThrow(ValidationError);
    expect(() => new RagIndex(vectors, new HashingEmbedder({ dimension: 64 }))).toThrow(ValidationError);
  });

  it('ingests with progress and retrieves by vector, whole-word keyword and hybrid ranking', async () => {
    const { loader, retriever } = await setup();
    const progress: Array<[number, number]> = [];
    const report = await loader.ingest(
      'docs',
      [
        { path: 'bees.md', text: 'Honey bees live in hives.\n\nThe queen lays eggs while workers forage for nectar. Varroa mites weaken colonies.' },
        { path: 'tea.txt', text: 'Green tea wants water at eighty degrees.\n\nOolong can be steeped several times.' },
        { path: 'cats.html', text: '<p>A category of concatenated words is not about a cat.</p>' },
      ],
      { onProgress: (p) => progress.push([p.done, p.total]) },
    );
    expect(report).toMatchObject({ documents: 3 });
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    const hybrid = await retriever.search('docs', 'varroa mites in the hive', { k: 3 });
    expect(hybrid[0]).toMatchObject({ path: 'bees.md' });
    expect(hybrid[0]!.matched).toContain('varroa');
    expect(hybrid[0]!.snippet).toContain('Varroa');
    expect((await retriever.search('docs', 'steeping oolong', { mode: 'keyword' }))[0]!.path).toBe('tea.txt');
    expect(await retriever.search('docs', 'categ', { mode: 'keyword' })).toEqual([]);
    const scores = (await retriever.search('docs', 'tea water', { mode: 'vector', k: 3 })).map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Re-ingesting a path replaces its chunks.
    const again = await loader.ingest('docs', [{ path: 'tea.txt', text: 'Black tea only.' }]);
    expect(again.replaced).toBeGreaterThanOrEqual(0);
    expect((await retriever.search('docs', 'oolong', { mode: 'keyword' })).length).toBe(0);
    // Deterministic: the same query ranks the same way every time.
    expect(await retriever.search('docs', 'bees and tea')).toEqual(await retriever.search('docs', 'bees and tea'));
  });

  it('offers remember, search_memory and rag_query as tools to a run', async () => {
    const { memory, retriever, loader } = await setup();
    const registry = new ToolRegistry();
    registerMemoryTools(registry, { memory, retriever });
    await loader.ingest('demo', [{ path: 'bees.md', text: 'Swarming happens when a colony outgrows its hive.' }]);
    const orchestrator = new Orchestrator({ registry, ids: createSequentialIds('t') });
    const remembered = await orchestrator.start('remember "the wifi password rotates monthly"', 'demo');
    expect(remembered.status).toBe('completed');
    const recalled = await orchestrator.start('search_memory(query="wifi password")', 'demo');
    expect(recalled.outputs['step-0']).toMatchObject([{ text: 'the wifi password rotates monthly' }]);
    const answered = await orchestrator.start('rag_query(query="when does swarming happen")', 'demo');
    expect(answered.outputs['step-0']).toMatchObject([{ path: 'bees.md' }]);
  });
});
