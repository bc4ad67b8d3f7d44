import * as z from 'zod';
import { NotFoundError, ValidationError } from '../errors.ts';
import type { HashingEmbedder } from '../embed/hashingEmbedder.ts';
import { createRandomIds, systemClock, type Clock, type Ids } from '../ports.ts';
import { JsonValueSchema, ProfileNameSchema, type JsonValue } from '../schema/common.ts';
import { parseOrThrow } from '../schema/validate.ts';
import type { VectorBackend, VectorHit } from '../vector/vectorBackend.ts';
import { FactRecordSchema, NamespaceSchema, type FactQuery, type FactRecord, type MemoryStore } from './memoryStore.ts';

/** Largest text `storeText` accepts, in characters. */
export const MAX_MEMORY_TEXT = 100_000;

/** A profile's memory as portable JSON: facts, and vectors as plain number arrays. */
export const MemoryStateSchema = z.object({
  format: z.literal('cugar.memory/1'),
  profile: ProfileNameSchema,
  facts: z.array(FactRecordSchema),
  vectors: z.array(z.object({ id: z.string().min(1), vector: z.array(z.number()), metadata: z.record(z.string(), z.unknown()) })),
});
export type MemoryState = z.infer<typeof MemoryStateSchema>;

/** What a {@link MemoryManager} works with. */
export interface MemoryManagerOptions {
  store: MemoryStore;
  vectors: VectorBackend;
  embedder: HashingEmbedder;
  clock?: Clock;
  ids?: Ids;
}

/**
 * A profile-scoped memory: namespaced symbolic facts with UTC timestamps, and vector memory
 * for semantic recall. Every call names its profile and no read ever crosses profiles: facts
 * are stored and filtered by profile, and vectors live in the profile's own partition.
 *
 * @example
 * await memory.storeFact('demo', 'preferences', { theme: 'dark' }, { key: 'ui' });
 * await memory.latest('demo', 'preferences'); // { value: { theme: 'dark' }, … }
 * await memory.storeText('demo', 'Invoices are due within 30 days.');
 * await memory.semanticSearch('demo', 'when are invoices due'); // [{ score, text, … }]
 */
export class MemoryManager {
  readonly #store: MemoryStore;
  readonly #vectors: VectorBackend;
  readonly #embedder: HashingEmbedder;
  readonly #clock: Clock;
  readonly #ids: Ids;

  constructor(options: MemoryManagerOptions) {
    if (options.vectors.dimension !== options.embedder.dimension) {
      throw new ValidationError(
        `the vector backend holds ${options.vectors.dimension}-dimensional vectors but the embedder makes ${options.embedder.dimension}`,
        { code: 'dimension_mismatch' },
      );
    }
    this.#store = options.store;
    this.#vectors = options.vectors;
    this.#embedder = options.embedder;
    this.#clock = options.clock ?? systemClock;
    this.#ids = options.ids ?? createRandomIds(this.#clock);
  }

  /** Store a fact in `namespace`; returns it with its id and UTC timestamp. */
  async storeFact(profile: string, namespace: string, value: JsonValue, options: { key?: string } = {}): Promise<FactRecord> {
    const [fact] = await this.storeFacts(profile, [{ namespace, value, ...options }]);
    return fact!;
  }

  /**
   * Store several facts at once (one write of the store: a single transaction on SQLite and
   * IndexedDB), all checked before any is written; returns them with their ids and timestamps.
   * An entry with an `id` replaces the fact of that id, so writing it again is idempotent.
   */
  async storeFacts(profile: string, entries: ReadonlyArray<{ namespace: string; value: JsonValue; key?: string; id?: string }>): Promise<FactRecord[]> {
    const at = this.#clock.now();
    const facts = entries.map(({ namespace, value, key, id }) =>
      parseOrThrow(
        FactRecordSchema,
        {
          id: id ?? this.#ids.next('fact'),
          profile,
          namespace,
          ...(key !== undefined ? { key } : {}),
          value: parseOrThrow(JsonValueSchema, value, 'fact value', 'invalid_fact'),
          at,
          timestamp: new Date(at).toISOString(),
        },
        'fact',
        'invalid_fact',
      ),
    );
    if (facts.length) await this.#store.putFacts(facts);
    return facts;
  }

  /** Facts of a namespace, newest first. An unknown namespace is a `NotFoundError` (`unknown_namespace`). */
  async query(profile: string, namespace: string, query: Omit<FactQuery, 'namespace'> = {}): Promise<FactRecord[]> {
    await this.#requireNamespace(profile, namespace);
    return this.#store.queryFacts(profile, { ...query, namespace });
  }

  /** The newest facts of the profile (optionally of one namespace). */
  async recallRecent(profile: string, options: { namespace?: string; limit?: number } = {}): Promise<FactRecord[]> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    if (options.namespace !== undefined) await this.#requireNamespace(profile, options.namespace);
    return this.#store.queryFacts(profile, { ...options, limit: options.limit ?? 10 });
  }

  /** The newest fact of a namespace (and key), if any. */
  async latest(profile: string, namespace: string, key?: string): Promise<FactRecord | undefined> {
    const [fact] = await this.query(profile, namespace, { ...(key !== undefined ? { key } : {}), limit: 1 });
    return fact;
  }

  /** Namespaces the profile has facts in. */
  async namespaces(profile: string): Promise<string[]> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    return this.#store.namespaces(profile);
  }

  /** Embed and keep `text` for semantic search; returns its id. */
  async storeText(profile: string, text: string, metadata: Record<string, unknown> = {}, id?: string): Promise<string> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    if (typeof text !== 'string' || text.trim() === '') throw new ValidationError('text to remember is empty', { code: 'empty_text' });
    if (text.length > MAX_MEMORY_TEXT) throw new ValidationError(`text to remember is longer than ${MAX_MEMORY_TEXT} characters`, { code: 'text_too_large' });
    const recordId = id ?? this.#ids.next('mem');
    const at = this.#clock.now();
    await this.#vectors.upsert(profile, [
      { id: recordId, vector: this.#embedder.embed(text), metadata: { ...metadata, text, profile, timestamp: new Date(at).toISOString() } },
    ]);
    return recordId;
  }

  /** The `k` stored texts most similar to `query`, with scores. */
  async semanticSearch(profile: string, query: string, k = 5): Promise<Array<VectorHit & { text: string }>> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    if (typeof query !== 'string' || query.trim() === '') throw new ValidationError('the search query is empty', { code: 'empty_query' });
    const hits = await this.#vectors.search(profile, this.#embedder.embed(query), { k });
    return hits.filter((hit) => hit.score > 0).map((hit) => ({ ...hit, text: String(hit.metadata['text'] ?? '') }));
  }

  /** The profile's whole memory as portable JSON. */
  async exportState(profile: string): Promise<MemoryState> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    const facts = await this.#store.queryFacts(profile);
    const vectors = await this.#vectors.list(profile, { vectors: true });
    return {
      format: 'cugar.memory/1',
      profile,
      facts: facts.reverse(),
      vectors: vectors.map((v) => ({ id: v.id, vector: Array.from(v.vector), metadata: v.metadata ?? {} })),
    };
  }

  /** Load an exported memory into `profile` (the export's own profile by default); validated before anything is written. */
  async importState(state: unknown, profile?: string): Promise<{ facts: number; vectors: number }> {
    const parsed = parseOrThrow(MemoryStateSchema, state, 'memory state', 'invalid_memory_state');
    const target = parseOrThrow(ProfileNameSchema, profile ?? parsed.profile, 'profile', 'invalid_profile');
    for (const v of parsed.vectors) {
      if (v.vector.length !== this.#vectors.dimension)
        throw new ValidationError(`vector ${v.id} has ${v.vector.length} dimensions, expected ${this.#vectors.dimension}`, { code: 'dimension_mismatch' });
    }
    await this.#vectors.upsert(
      target,
      parsed.vectors.map((v) => ({ id: v.id, vector: Float32Array.from(v.vector), metadata: { ...v.metadata, profile: target } })),
    );
    await this.#store.putFacts(parsed.facts.map((f) => ({ ...f, profile: target })));
    return { facts: parsed.facts.length, vectors: parsed.vectors.length };
  }

  async #requireNamespace(profile: string, namespace: string): Promise<void> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    parseOrThrow(NamespaceSchema, namespace, 'namespace', 'invalid_namespace');
    if (!(await this.#store.namespaces(profile)).includes(namespace)) {
      throw new NotFoundError(`profile "${profile}" has no facts in namespace "${namespace}"`, { code: 'unknown_namespace', details: { profile, namespace } });
    }
  }
}
