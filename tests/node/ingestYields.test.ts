import { describe, expect, it } from 'vitest';
import { HashingEmbedder, InMemoryStore, RagIndex, RagLoader } from '../../src/core/index.ts';

// A big ingest runs on the host's one event loop: other requests (a health check, an SSE
// stream) must be served while it works, not after it.
describe('ingest shares the event loop', () => {
  it('lets timers run while it chunks and embeds megabytes of text', async () => {
    const store = new InMemoryStore();
    const loader = new RagLoader(new RagIndex(store.vectors(256), new HashingEmbedder({ dimension: 256 })));
    const paragraph = 'Bees keep their hive warm in winter by clustering and shivering their flight muscles. '.repeat(40);
    const documents = Array.from({ length: 200 }, (_, i) => ({ path: `notes-${i}.md`, text: `# Note ${i}\n\n${paragraph}\n\n${paragraph}` }));
    expect(documents.reduce((n, d) => n + d.text.length, 0)).toBeGreaterThan(1_000_000);
    let turns = 0;
    const ticker = setInterval(() => turns++, 1);
    try {
      const report = await loader.ingest('demo', documents);
      expect(report.documents).toBe(200);
    } finally {
      clearInterval(ticker);
    }
    // Without slices the loop would get no turn at all until the ingest ended.
    expect(turns).toBeGreaterThanOrEqual(1);
  });
});
