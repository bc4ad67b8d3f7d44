import { ValidationError } from '../errors.ts';
import type { HashingEmbedder } from '../embed/hashingEmbedder.ts';
import { ENGLISH_STOP_WORDS } from '../embed/tokenize.ts';
import { hasVectorSnapshots } from '../store/persistedVectors.ts';
import { KeywordIndex, type KeywordIndexOptions } from '../vector/keywordIndex.ts';
import type { VectorBackend } from '../vector/vectorBackend.ts';

/** The name of the keyword index's snapshot beside a profile's vectors. */
export const KEYWORD_SNAPSHOT = 'rag-keywords';
const KEYWORD_OPTIONS: KeywordIndexOptions = { stopWords: [...ENGLISH_STOP_WORDS] };

/**
 * What RAG ingest and retrieval share: the vector backend (validated here, once), the
 * embedder, and a whole-word keyword index per profile. The keyword index is loaded the first
 * time a profile is touched: from its snapshot when the backend keeps one that matches the
 * stored records, else rebuilt from the backend's stored chunk texts (nothing is re-embedded)
 * and snapshotted for the next start.
 */
export class RagIndex {
  readonly backend: VectorBackend;
  readonly embedder: HashingEmbedder;
  readonly #keywords = new Map<string, Promise<KeywordIndex>>();
  /** Writes under way per profile (vectors written, keywords not yet): no snapshot is taken meanwhile. */
  readonly #writing = new Map<string, number>();

  constructor(backend: VectorBackend, embedder: HashingEmbedder) {
    const methods = ['connect', 'upsert', 'search', 'delete', 'count', 'list'] as const;
    const missing = methods.filter((m) => typeof (backend as unknown as Record<string, unknown> | undefined)?.[m] !== 'function');
    if (!backend || missing.length) throw new ValidationError(`the vector backend lacks ${missing.join(', ') || 'everything'}`, { code: 'invalid_backend' });
    if (!Number.isInteger(backend.dimension) || backend.dimension !== embedder.dimension) {
      throw new ValidationError(`the vector backend holds ${backend.dimension}-dimensional vectors but the embedder makes ${embedder.dimension}`, {
        code: 'invalid_backend',
      });
    }
    this.backend = backend;
    this.embedder = embedder;
  }

  /** The profile's keyword index, loaded on first use. */
  keywords(profile: string): Promise<KeywordIndex> {
    let index = this.#keywords.get(profile);
    if (!index) {
      index = this.#load(profile);
      this.#keywords.set(profile, index);
      // A failed load is not cached, so the next call tries again.
      index.catch(() => this.#keywords.delete(profile));
    }
    return index;
  }

  /**
   * The metadata of the profile's document chunks `ids`, in their order (undefined for a chunk
   * no longer held): from the keyword index where it keeps it, else (chunks loaded from its
   * snapshot) from the backend, all in one read.
   */
  async metadata(profile: string, ids: readonly string[]): Promise<Array<Record<string, unknown> | undefined>> {
    const keywords = await this.keywords(profile);
    const found = ids.map((id) => keywords.metadata(id));
    const missing = ids.filter((id, i) => !found[i] && keywords.has(id));
    const backend = this.backend;
    if (missing.length && hasVectorSnapshots(backend)) {
      const read = await backend.metadataOf(profile, missing);
      const byId = new Map(missing.map((id, i) => [id, read[i]]));
      return ids.map((id, i) => found[i] ?? byId.get(id));
    }
    return found;
  }

  /**
   * Run `write`, which changes the profile's document chunks in the backend and then in the
   * keyword index; a snapshot is never taken while one is half done.
   */
  async writing<T>(profile: string, write: () => Promise<T>): Promise<T> {
    this.#writing.set(profile, (this.#writing.get(profile) ?? 0) + 1);
    try {
      return await write();
    } finally {
      const left = this.#writing.get(profile)! - 1;
      if (left > 0) this.#writing.set(profile, left);
      else this.#writing.delete(profile);
    }
  }

  /**
   * Snapshot the profile's keyword index beside its vectors, stamped with the generation of the
   * records it reflects, so the next start loads it instead of rebuilding it. Returns whether a
   * snapshot was stored: not when the backend keeps none, a write is under way, or the stored
   * records changed meanwhile (then the next start rebuilds, as without a snapshot).
   */
  async persist(profile: string): Promise<boolean> {
    const backend = this.backend;
    if (!hasVectorSnapshots(backend) || this.#writing.has(profile)) return false;
    const keywords = await this.keywords(profile);
    const generation = await backend.snapshotGeneration(profile);
    if (generation === undefined || this.#writing.has(profile)) return false;
    const stored = await backend.writeSnapshot(profile, KEYWORD_SNAPSHOT, generation, keywords.toSnapshot());
    return (await backend.snapshotVectors(profile)) && stored;
  }

  async #load(profile: string): Promise<KeywordIndex> {
    const backend = this.backend;
    if (hasVectorSnapshots(backend)) {
      const bytes = await backend.readSnapshot(profile, KEYWORD_SNAPSHOT);
      // Its documents' metadata stays with the backend ({@link metadata}), read for the hits a search returns.
      const loaded = bytes && KeywordIndex.fromSnapshot(bytes, KEYWORD_OPTIONS);
      if (loaded) return loaded;
    }
    const generation = hasVectorSnapshots(backend) ? await backend.snapshotGeneration(profile) : undefined;
    const keyword = new KeywordIndex(KEYWORD_OPTIONS);
    for (const record of await backend.list(profile)) {
      const text = record.metadata?.['text'];
      if (typeof text === 'string' && record.metadata?.['path'] !== undefined) keyword.upsert(record.id, text, record.metadata);
    }
    // Snapshot what was rebuilt; storage refuses it if the records moved on since `generation`.
    if (generation !== undefined && hasVectorSnapshots(backend)) await backend.writeSnapshot(profile, KEYWORD_SNAPSHOT, generation, keyword.toSnapshot());
    return keyword;
  }
}
