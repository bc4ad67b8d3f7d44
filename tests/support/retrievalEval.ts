import { HashingEmbedder, InMemoryVectorBackend, RagIndex, RagLoader, RagRetriever, type RetrievalMode } from '../../src/core/index.ts';

/** One labelled query: the corpus documents that answer it. */
export interface LabelledQuery {
  query: string;
  relevant: string[];
}

/** recall@k per mode: the share of queries with a relevant document among the top k hits. */
export async function evaluateRetrieval(
  corpus: Array<{ path: string; text: string }>,
  queries: readonly LabelledQuery[],
  k = 5,
): Promise<Record<RetrievalMode, number>> {
  const embedder = new HashingEmbedder({ dimension: 256 });
  const vectors = new InMemoryVectorBackend(256);
  await vectors.connect();
  const index = new RagIndex(vectors, embedder);
  await new RagLoader(index).ingest('eval', corpus);
  const retriever = new RagRetriever(index);
  const recall = {} as Record<RetrievalMode, number>;
  for (const mode of ['vector', 'keyword', 'hybrid'] as const) {
    let found = 0;
    for (const { query, relevant } of queries) {
      const hits = await retriever.search('eval', query, { k, mode });
      if (hits.some((hit) => relevant.includes(hit.path))) found++;
    }
    recall[mode] = found / queries.length;
  }
  return recall;
}
