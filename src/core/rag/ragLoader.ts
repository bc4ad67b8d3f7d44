import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { createYielder } from '../ports.ts';
import { ProfileNameSchema } from '../schema/common.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { ChunkOptionsSchema, chunkText, type Chunk, type ChunkOptions } from './chunker.ts';
import { extractText } from './extractText.ts';
import type { RagIndex } from './ragIndex.ts';

/** A document to ingest: its path (which names its type) and its raw content. */
export interface IngestDocument {
  path: string;
  text: string;
}

/** Ingest progress, after each document. */
export interface IngestProgress {
  done: number;
  total: number;
  path: string;
  chunks: number;
}

/** What an ingest did. */
export interface IngestReport {
  documents: number;
  chunks: number;
  /** Chunks of earlier versions of these documents that were removed. */
  replaced: number;
}

const DocumentsSchema = z
  .array(z.object({ path: z.string(), text: z.string() }))
  .min(1)
  .max(100_000);

/** An ingest snapshots the profile when it wrote at least 1 / SNAPSHOT_SHARE of its chunks. */
const SNAPSHOT_SHARE = 4;

/**
 * Ingests documents for retrieval: extracts text (`.txt`, `.md`, `.html` without a DOM,
 * `.json`), chunks it along paragraphs and sentences, embeds each chunk and stores it with
 * metadata `{ path, profile, chunk, offset, text }`. Every document is checked before
 * anything is written, so one bad document changes nothing. Re-ingesting a path replaces it.
 */
export class RagLoader {
  readonly #index: RagIndex;
  readonly #chunk: ChunkOptions;

  constructor(index: RagIndex, chunk: ChunkOptions = {}) {
    this.#index = index;
    this.#chunk = parseOrThrow(ChunkOptionsSchema, chunk, 'chunk options', 'invalid_chunk_options');
  }

  async ingest(
    profile: string,
    documents: readonly IngestDocument[],
    options: { onProgress?: (progress: IngestProgress) => void } = {},
  ): Promise<IngestReport> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    parseOrThrow(DocumentsSchema, documents, 'documents', 'invalid_document');
    // Ingests run on the host's one event loop: the work is cut into slices between which
    // other requests are served.
    const yieldNow = createYielder();
    const paths = new Set<string>();
    const prepared: Array<{ path: string; chunks: Chunk[] }> = [];
    for (const doc of documents) {
      if (paths.has(doc.path)) throw new ValidationError(`${doc.path} appears twice in one ingest`, { code: 'duplicate_document' });
      paths.add(doc.path);
      prepared.push({ path: doc.path, chunks: chunkText(extractText(doc.path, doc.text), this.#chunk) });
      await yieldNow();
    }

    const { backend, embedder } = this.#index;
    const keywords = await this.#index.keywords(profile);
    const report = await this.#index.writing(profile, async () => {
      const existing = (await backend.list(profile)).filter((r) => paths.has(String(r.metadata?.['path']))).map((r) => r.id);
      const fresh = new Set(prepared.flatMap((doc) => doc.chunks.map((_, i) => `${doc.path}#${i}`)));
      const stale = existing.filter((id) => !fresh.has(id));
      if (stale.length) {
        await backend.delete(profile, stale);
        keywords.delete(stale);
      }
      let total = 0;
      for (const [done, doc] of prepared.entries()) {
        const records = [];
        for (const [i, chunk] of doc.chunks.entries()) {
          records.push({
            id: `${doc.path}#${i}`,
            vector: embedder.embed(chunk.text),
            metadata: { path: doc.path, profile, chunk: i, offset: chunk.offset, text: chunk.text },
          });
          await yieldNow();
        }
        await backend.upsert(profile, records);
        for (const record of records) keywords.upsert(record.id, record.metadata.text, record.metadata);
        total += records.length;
        options.onProgress?.({ done: done + 1, total: prepared.length, path: doc.path, chunks: records.length });
      }
      return { documents: prepared.length, chunks: total, replaced: stale.length };
    });
    // Snapshot the profile once the batch is in, so a restart loads it instead of rebuilding it;
    // only when the batch is a good part of the profile, so many small batches into a large
    // profile do not each rewrite it (a restart then rebuilds once, and snapshots what it built).
    if ((report.chunks + report.replaced) * SNAPSHOT_SHARE >= (await this.#index.backend.count(profile))) await this.#index.persist(profile);
    return report;
  }
}
