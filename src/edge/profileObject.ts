import { DurableObject, type DurableObjectStorage } from 'cloudflare:workers';
import { type FactQuery, type FactRecord, type VectorHit, type VectorRecord, type VectorSearchOptions } from '../core/index.ts';
import { PersistedVectorBackend, filterFacts, type VectorRow, type VectorRows } from '../core/stores.ts';
import type { DurableObjectBindings } from './durableObjectStore.ts';
import { capture, type Outcome } from './errorRecord.ts';

/** A storage `put` or `delete` takes at most 128 keys; larger writes are split inside one transaction. */
const KEYS_PER_CALL = 100;

/** A profile's vectors in its object's storage, one key per vector (`vec:<id>`, Float32 bytes). */
class ObjectVectorRows implements VectorRows {
  readonly #storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  async load(): Promise<VectorRow[]> {
    const rows = await this.#storage.list<{ id: string; vector: ArrayBuffer; metadata: Record<string, unknown> }>({ prefix: 'vec:' });
    return [...rows.values()].map((row) => ({ id: row.id, bytes: row.vector, metadata: row.metadata }));
  }

  async put(_profile: string, rows: readonly VectorRow[]): Promise<void> {
    await this.#storage.transaction(async (txn) => {
      for (let i = 0; i < rows.length; i += KEYS_PER_CALL) {
        const entries: Record<string, unknown> = {};
        for (const row of rows.slice(i, i + KEYS_PER_CALL)) entries[`vec:${row.id}`] = { id: row.id, vector: row.bytes, metadata: row.metadata };
        await txn.put(entries);
      }
    });
  }

  async delete(_profile: string, ids: readonly string[]): Promise<void> {
    await this.#storage.transaction(async (txn) => {
      for (let i = 0; i < ids.length; i += KEYS_PER_CALL) await txn.delete(ids.slice(i, i + KEYS_PER_CALL).map((id) => `vec:${id}`));
    });
  }
}

/**
 * One profile's memory: facts and vectors in this object's storage, the vectors searched from
 * an in-memory index that stays warm between requests. A profile per object keeps profiles
 * apart by construction.
 */
export class ProfileObject extends DurableObject<DurableObjectBindings> {
  readonly #vectors = new Map<number, PersistedVectorBackend>();

  async putFacts(facts: readonly FactRecord[]): Promise<void> {
    const entries: Record<string, FactRecord> = {};
    for (const fact of facts) entries[`fact:${fact.id}`] = fact;
    await this.ctx.storage.put(entries);
  }

  async queryFacts(query?: FactQuery): Promise<FactRecord[]> {
    return filterFacts([...(await this.ctx.storage.list<FactRecord>({ prefix: 'fact:' })).values()], query);
  }

  async namespaces(): Promise<string[]> {
    return [...new Set((await this.queryFacts()).map((f) => f.namespace))].sort();
  }

  async deleteFacts(namespace?: string): Promise<number> {
    const keys = (await this.queryFacts(namespace ? { namespace } : {})).map((f) => `fact:${f.id}`);
    return keys.length ? this.ctx.storage.delete(keys) : 0;
  }

  #backend(dimension: number): PersistedVectorBackend {
    let backend = this.#vectors.get(dimension);
    if (!backend) {
      backend = new PersistedVectorBackend(dimension, new ObjectVectorRows(this.ctx.storage));
      this.#vectors.set(dimension, backend);
    }
    return backend;
  }

  vectorUpsert(dimension: number, profile: string, records: VectorRecord[]): Promise<Outcome<void>> {
    return capture(() => this.#backend(dimension).upsert(profile, records));
  }

  vectorSearch(dimension: number, profile: string, query: Float32Array, options?: VectorSearchOptions): Promise<Outcome<VectorHit[]>> {
    return capture(() => this.#backend(dimension).search(profile, query, options));
  }

  vectorDelete(dimension: number, profile: string, ids: string[]): Promise<Outcome<number>> {
    return capture(() => this.#backend(dimension).delete(profile, ids));
  }

  vectorCount(dimension: number, profile: string): Promise<Outcome<number>> {
    return capture(() => this.#backend(dimension).count(profile));
  }

  vectorList(dimension: number, profile: string, withVectors: boolean): Promise<Outcome<VectorRecord[]>> {
    return capture(() => this.#backend(dimension).list(profile, { vectors: withVectors }));
  }
}
