/// <reference types="vite/client" />
import { describe, expect, it } from 'vitest';
import labelled from '../fixtures/retrieval.json';
import { evaluateRetrieval } from '../support/retrievalEval.ts';

// The sample corpus, read the same way in Node and in Chromium.
const files = import.meta.glob('/public/corpus/*', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const corpus = Object.entries(files).map(([path, text]) => ({ path: path.split('/').pop()!, text }));

describe('retrieval quality on the labelled set', () => {
  it('has at least 50 labelled queries over the sample corpus', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(10);
    expect(labelled.length).toBeGreaterThanOrEqual(50);
    for (const q of labelled) for (const path of q.relevant) expect(corpus.map((d) => d.path)).toContain(path);
  });

  it('reports recall@5 for vector, keyword and hybrid; hybrid is at least as good as either', async () => {
    const recall = await evaluateRetrieval(corpus, labelled, 5);
    const top1 = await evaluateRetrieval(corpus, labelled, 1);
    console.info(
      `recall@5 over ${labelled.length} queries: vector ${recall.vector.toFixed(3)}, keyword ${recall.keyword.toFixed(3)}, hybrid ${recall.hybrid.toFixed(3)}; recall@1: vector ${top1.vector.toFixed(3)}, keyword ${top1.keyword.toFixed(3)}, hybrid ${top1.hybrid.toFixed(3)}`,
    );
    expect(recall.hybrid).toBeGreaterThanOrEqual(recall.vector);
    expect(recall.hybrid).toBeGreaterThanOrEqual(recall.keyword);
    expect(recall.hybrid).toBeGreaterThanOrEqual(0.8);
  });
});
