import { SystemError, ValidationError } from '../errors.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { FlatVectorIndex } from '../vector/flatVectorIndex.ts';
import {
  VectorProfileSchema,
  VectorSearchOptionsSchema,
  type VectorBackend,
  type VectorHit,
  type VectorRecord,
  type VectorSearchOptions,
} from '../vector/vectorBackend.ts';

/** One stored vector: its id, its Float32 values as little-endian bytes, and its JSON metadata. */
export interface VectorRow {
  id: string;
  /** `dimension × 4` bytes; a Node `Buffer` is a `Uint8Array` and fits as it is. */
  bytes: ArrayBuffer | Uint8Array;
  metadata: Record<string, unknown>;
}

/**
 * The storage a {@link PersistedVectorBackend} writes through: one profile's rows at a time. Each
 * call is one atomic write or one read; the backend validates everything before it calls `put`.
 */
export interface VectorRows {
  /** Open the storage; optional and idempotent. */
  connect?(): Promise<void>;
  /** Every row of `profile`, in a stable order. */
  load(profile: string): Promise<readonly VectorRow[]> | readonly VectorRow[];
  /** Insert or replace `rows` of `profile`, all or none. */
  put(profile: string, rows: readonly VectorRow[]): Promise<void> | void;
  /** Remove the rows of `profile` with these ids (ids that do not exist are ignored), all or none. */
  delete(profile: string, ids: readonly string[]): Promise<void> | void;
}

/** A vector's bytes as a fresh `ArrayBuffer`, little-endian (every platform CUGAr runs on is). */
export function vectorToBytes(vector: Float32Array): ArrayBuffer {
  return vector.slice().buffer as ArrayBuffer;
}

/** Stored bytes back into a vector of `dimension` values; a wrong length is a `corrupt_row` {@link SystemError}. */
export function vectorFromBytes(bytes: ArrayBuffer | Uint8Array, dimension: number, where: string): Float32Array {
  const length = bytes instanceof ArrayBuffer || bytes instanceof Uint8Array ? bytes.byteLength : 0;
  if (length !== dimension * 4)
    throw new SystemError(`stored vector ${where} is corrupt (${length} bytes, expected ${dimension * 4})`, { code: 'corrupt_row' });
  const vector = new Float32Array(dimension);
  new Uint8Array(vector.buffer).set(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  return vector;
}

/**
 * A {@link VectorBackend} persisted through a {@link VectorRows} port and searched in memory: a
 * profile's rows are read once into a {@link FlatVectorIndex} (never re-embedded), and every
 * write goes to storage first, then to the index, so the index never holds what storage lost.
 * A profile whose rows fail to load is read again on the next call.
 *
 * @example
 * const vectors = new PersistedVectorBackend(256, rowsInMyDatabase);
 * await vectors.upsert('demo', [{ id: 'a', vector }]);
 */
export class PersistedVectorBackend implements VectorBackend {
  readonly dimension: number;
  readonly #rows: VectorRows;
  readonly #loaded = new Map<string, Promise<FlatVectorIndex>>();

  constructor(dimension: number, rows: VectorRows) {
    if (!Number.isInteger(dimension) || dimension < 1)
      throw new ValidationError(`dimension must be a positive integer, got ${dimension}`, { code: 'invalid_dimension' });
    this.dimension = dimension;
    this.#rows = rows;
  }

  async connect(): Promise<void> {
    await this.#rows.connect?.();
  }

  #index(profile: string): Promise<FlatVectorIndex> {
    parseOrThrow(VectorProfileSchema, profile, 'profile', 'invalid_profile');
    let index = this.#loaded.get(profile);
    if (!index) {
      index = (async () => {
        const rows = await this.#rows.load(profile);
        const flat = new FlatVectorIndex(this.dimension, rows.length);
        flat.upsert(rows.map((row) => ({ id: row.id, vector: vectorFromBytes(row.bytes, this.dimension, `${profile}/${row.id}`), metadata: row.metadata })));
        return flat;
      })();
      this.#loaded.set(profile, index);
      index.catch(() => this.#loaded.delete(profile));
    }
    return index;
  }

  async upsert(profile: string, records: readonly VectorRecord[]): Promise<void> {
    const index = await this.#index(profile);
    for (const record of records) index.validate(record);
    await this.#rows.put(
      profile,
      records.map((r) => ({ id: r.id, bytes: vectorToBytes(r.vector), metadata: { ...(r.metadata ?? {}) } })),
    );
    index.upsert(records);
  }

  async search(profile: string, query: Float32Array, options?: VectorSearchOptions): Promise<VectorHit[]> {
    parseOrThrow(VectorSearchOptionsSchema, options ?? {}, 'search options');
    return (await this.#index(profile)).search(query, options);
  }

  async delete(profile: string, ids: readonly string[]): Promise<number> {
    const index = await this.#index(profile);
    if (ids.length) await this.#rows.delete(profile, ids);
    return index.delete(ids);
  }

  async count(profile: string): Promise<number> {
    return (await this.#index(profile)).size;
  }

  async list(profile: string, options: { vectors?: boolean } = {}): Promise<VectorRecord[]> {
    return (await this.#index(profile)).records(options.vectors === true);
  }
}

/** A {@link VectorRows} port kept in memory (copies in, copies out): the in-memory store's, and a reference for adapters. */
export class InMemoryVectorRows implements VectorRows {
  readonly #profiles = new Map<string, Map<string, VectorRow>>();

  load(profile: string): VectorRow[] {
    return [...(this.#profiles.get(profile)?.values() ?? [])].map((row) => ({ ...row, bytes: row.bytes.slice(0), metadata: structuredClone(row.metadata) }));
  }

  put(profile: string, rows: readonly VectorRow[]): void {
    const stored = this.#profiles.get(profile) ?? new Map<string, VectorRow>();
    for (const row of rows) stored.set(row.id, { id: row.id, bytes: row.bytes.slice(0), metadata: structuredClone(row.metadata) });
    this.#profiles.set(profile, stored);
  }

  delete(profile: string, ids: readonly string[]): void {
    const stored = this.#profiles.get(profile);
    for (const id of ids) stored?.delete(id);
  }
}
