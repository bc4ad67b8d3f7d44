// The storage workloads, shared by the Node engines and the Chromium page.
import { HashingEmbedder, RagIndex, RagLoader, RagRetriever, type AppendBatch, type JournalEvent, type Store, type VectorBackend } from '../src/core/index.ts';
import { sealEvent } from '../src/core/testing.ts';
import { makeCorpus, makeQueries } from './corpus.ts';

export const DOCS = 10_000;
export const RUNS = 50;
export const EVENTS_PER_RUN = 40;
const DIM = 256;

export interface StorageFigures {
  ingestDocsPerSecond?: number;
  appendEventsPerSecond?: number;
  coldFirstQueryMs?: number;
  warmMedianQueryMs?: number;
}

/** Ingest DOCS × 1 KiB documents (one chunk each); returns documents per second. */
export async function ingest(vectors: VectorBackend): Promise<number> {
  const docs = makeCorpus(DOCS, 1024, 5).map((text, i) => ({ path: `doc-${i}.txt`, text }));
  const loader = new RagLoader(new RagIndex(vectors, new HashingEmbedder({ dimension: DIM })), { size: 2000, overlap: 0 });
  const started = performance.now();
  for (let i = 0; i < docs.length; i += 500) await loader.ingest('bench', docs.slice(i, i + 500));
  return (DOCS / (performance.now() - started)) * 1000;
}

const HASH = 'a'.repeat(64);
const HEALTH = { score: 1, signals: { latency: 1, repetition: 1, substance: 1 }, action: 'continue' as const };

/** The batches of RUNS runs, EVENTS_PER_RUN single-event batches each, sealed (hash-chained) in advance. */
function appendBatches(): AppendBatch[][] {
  return Array.from({ length: RUNS }, (_, r) => {
    const runId = `bench-${r}`;
    let previous: JournalEvent | undefined;
    return Array.from({ length: EVENTS_PER_RUN }, (_, i) => {
      // As the orchestrator appends: the batch carries the text of each event's data its hash covers.
      const dataTexts: string[] = [];
      const event = sealEvent(
        previous,
        runId,
        'tool_call_complete',
        1_000 + i,
        {
          stepId: `step-${i}`,
          attempt: 1,
          argsHash: HASH,
          output: { i },
          durationMs: 1,
          health: HEALTH,
        },
        dataTexts,
      );
      const batch: AppendBatch = {
        runId,
        events: [event],
        dataTexts,
        expectedHead: previous ? { seq: previous.seq, hash: previous.hash } : null,
        run: {
          runId,
          traceId: runId,
          profile: 'bench',
          goal: 'bench',
          status: 'running',
          createdAt: 1_000,
          updatedAt: event.at,
          head: { seq: event.seq, hash: event.hash },
        },
      };
      previous = event;
      return batch;
    });
  });
}

/**
 * RUNS runs appending one event at a time, all at once (as concurrent runs do); returns events
 * per second. The events are sealed before the clock starts: this measures the store, not hashing.
 */
export async function appends(store: Store): Promise<number> {
  const runs = appendBatches();
  const started = performance.now();
  await Promise.all(
    runs.map(async (batches) => {
      for (const batch of batches) await store.append(batch);
    }),
  );
  return ((RUNS * EVENTS_PER_RUN) / (performance.now() - started)) * 1000;
}

/** The first query over a persisted corpus from a fresh process or page (loads vectors and keywords), then warm queries. */
export async function coldQuery(vectors: VectorBackend): Promise<{ coldFirstQueryMs: number; warmMedianQueryMs: number }> {
  const retriever = new RagRetriever(new RagIndex(vectors, new HashingEmbedder({ dimension: DIM })));
  const queries = makeQueries(40, 3);
  const started = performance.now();
  await retriever.search('bench', queries[0]!, { k: 5 });
  const coldFirstQueryMs = performance.now() - started;
  const samples: number[] = [];
  for (const query of queries.slice(1)) {
    const t = performance.now();
    await retriever.search('bench', query, { k: 5 });
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return { coldFirstQueryMs, warmMedianQueryMs: samples[Math.floor(samples.length / 2)]! };
}
