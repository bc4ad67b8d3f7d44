import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { ProfileNameSchema } from '../schema/common.ts';
import { parseOrThrow } from '../schema/validate.ts';
import type { RagIndex } from './ragIndex.ts';
import { snippet } from './snippet.ts';

/** How to rank: by embedding similarity, by BM25 over whole words, or both fused. */
export type RetrievalMode = 'vector' | 'keyword' | 'hybrid';

export const RetrieveOptionsSchema = z.object({
  k: z.number().int().min(1).max(100).default(5),
  mode: z.enum(['vector', 'keyword', 'hybrid']).default('hybrid'),
});
export type RetrieveOptions = z.input<typeof RetrieveOptionsSchema>;

/** One retrieved chunk. */
export interface RagHit {
  id: string;
  path: string;
  chunk: number;
  offset: number;
  /** The ranking score of the chosen mode (higher is better). */
  score: number;
  vectorScore?: number;
  keywordScore?: number;
  /** About 240 characters of the chunk around the first matched word. */
  snippet: string;
  /** Query words found in the chunk, for highlighting. */
  matched: string[];
}

/** Candidates taken from each ranking before fusion. */
const FUSION_DEPTH = 50;
/** The reciprocal-rank-fusion constant: larger flattens the advantage of the very top ranks. */
const RRF_K = 60;

/**
 * Retrieves scored chunks: vector search, whole-word BM25 keyword search, or both fused by
 * reciprocal rank (each chunk scores Σ 1/(60 + rank) over the rankings it appears in). Ties
 * are broken by id, so the same query over the same data always ranks the same way.
 */
export class RagRetriever {
  readonly #index: RagIndex;

  constructor(index: RagIndex) {
    this.#index = index;
  }

  /** How many document chunks the profile holds (its keyword index, built from the stored chunks). */
  async chunkCount(profile: string): Promise<number> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    return (await this.#index.keywords(profile)).size;
  }

  async search(profile: string, query: string, options: RetrieveOptions = {}): Promise<RagHit[]> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    const { k, mode } = parseOrThrow(RetrieveOptionsSchema, options, 'retrieve options');
    if (typeof query !== 'string' || query.trim() === '') throw new ValidationError('the query is empty', { code: 'empty_query' });
    const keywords = await this.#index.keywords(profile);
    const words = keywords.words(query);
    const depth = mode === 'hybrid' ? Math.max(FUSION_DEPTH, k) : k;

    // Documents only (the chunks the keyword index holds): notes kept in memory share the backend
    // but are no documents. The search goes deep enough that the notes cannot crowd the documents
    // out of the top `depth`. Metadata is read for the `k` returned only.
    const notes = mode === 'keyword' ? 0 : Math.max(0, (await this.#index.backend.count(profile)) - keywords.size);
    const vectorHits =
      mode === 'keyword'
        ? []
        : (await this.#index.backend.search(profile, this.#index.embedder.embed(query), { k: Math.min(10_000, depth + notes), metadata: false }))
            .filter((h) => h.score > 0 && keywords.has(h.id))
            .slice(0, depth);
    const keywordHits = mode === 'vector' ? [] : keywords.search(query, depth);

    const fused = new Map<string, { score: number; vectorScore?: number; keywordScore?: number; matched: string[] }>();
    const add = (id: string, rank: number, patch: { vectorScore?: number; keywordScore?: number; matched?: string[] }) => {
      const entry = fused.get(id) ?? { score: 0, matched: [] };
      entry.score += mode === 'hybrid' ? 1 / (RRF_K + rank + 1) : (patch.vectorScore ?? patch.keywordScore ?? 0);
      if (patch.vectorScore !== undefined) entry.vectorScore = patch.vectorScore;
      if (patch.keywordScore !== undefined) entry.keywordScore = patch.keywordScore;
      if (patch.matched) entry.matched = patch.matched;
      fused.set(id, entry);
    };
    vectorHits.forEach((hit, rank) => add(hit.id, rank, { vectorScore: hit.score }));
    keywordHits.forEach((hit, rank) => add(hit.id, rank, { keywordScore: hit.score, matched: hit.matched }));

    const top = [...fused.entries()].sort(([a, x], [b, y]) => y.score - x.score || (a < b ? -1 : a > b ? 1 : 0)).slice(0, k);
    const metadata = await this.#index.metadata(
      profile,
      top.map(([id]) => id),
    );
    // A chunk deleted while this search ran has no metadata left: it is not returned.
    return top
      .map(([id, entry], i) => ({ id, entry, metadata: metadata[i] }))
      .filter((hit): hit is typeof hit & { metadata: Record<string, unknown> } => hit.metadata !== undefined)
      .map(({ id, entry, metadata }) => {
        const text = String(metadata['text'] ?? '');
        const matched = entry.matched.length ? entry.matched : inText(words, keywords.words(text));
        return {
          id,
          path: String(metadata['path'] ?? ''),
          chunk: Number(metadata['chunk'] ?? 0),
          offset: Number(metadata['offset'] ?? 0),
          score: Math.round(entry.score * 1e6) / 1e6,
          ...(entry.vectorScore !== undefined ? { vectorScore: Math.round(entry.vectorScore * 1e6) / 1e6 } : {}),
          ...(entry.keywordScore !== undefined ? { keywordScore: Math.round(entry.keywordScore * 1e6) / 1e6 } : {}),
          snippet: snippet(text, matched),
          matched,
        };
      });
  }
}

/** The query words that are among a text's words, in query order. */
function inText(words: readonly string[], textWords: readonly string[]): string[] {
  const present = new Set(textWords);
  return words.filter((word) => present.has(word));
}
