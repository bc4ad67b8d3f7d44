import { ValidationError } from '../errors.ts';
import type { HashingEmbedder } from '../embed/hashingEmbedder.ts';
import { ENGLISH_STOP_WORDS } from '../embed/tokenize.ts';
import { KeywordIndex } from '../vector/keywordIndex.ts';
import type { VectorBackend } from '../vector/vectorBackend.ts';

/**
 * What RAG ingest and retrieval share: the vector backend (validated here, once), the
 * embedder, and a whole-word keyword index per profile, rebuilt from the backend's stored
 * chunk texts the first time a profile is touched (so it survives restarts without
 * re-embedding anything).
 */
export class RagIndex {
  readonly backend: VectorBackend;
  readonly embedder: HashingEmbedder;
  readonly #keywords = new Map<string, Promise<KeywordIndex>>();

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

  /** The profile's keyword index, loaded from the backend on first use. */
  keywords(profile: string): Promise<KeywordIndex> {
    let index = this.#keywords.get(profile);
    if (!index) {
      index = (async () => {
        const keyword = new KeywordIndex({ stopWords: [...ENGLISH_STOP_WORDS] });
        for (const record of await this.backend.list(profile)) {
          const text = record.metadata?.['text'];
          if (typeof text === 'string' && record.metadata?.['path'] !== undefined) keyword.upsert(record.id, text, record.metadata);
        }
        return keyword;
      })();
      this.#keywords.set(profile, index);
      // A failed load is not cached, so the next call tries again.
      index.catch(() => this.#keywords.delete(profile));
    }
    return index;
  }
}
