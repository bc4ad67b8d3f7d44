import { SystemError, ValidationError } from '../errors.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { createVectorIndex, type InMemoryVectorOptions, type VectorPartition } from '../vector/flatVectorIndex.ts';
import { IvfVectorIndex } from '../vector/ivfVectorIndex.ts';
import { RowMetadata, snapshotSource, type LoadedMetadata } from './rowMetadata.ts';
import { SnapshotMetadata, decodeVectorSnapshot, encodeVectorSnapshot, joinedBytes, type DecodedVectors, type SnapshotBytes } from './vectorSnapshot.ts';
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
 * A profile's generation as a write changed it. Storage that keeps snapshots counts every
 * `put` and `delete` of a profile's rows in the same transaction as the write, so a snapshot
 * stamped with a generation is current exactly while the count has not moved.
 */
export interface GenerationChange {
  before: number;
  after: number;
}

/** A snapshot as stored: its bytes, the generation they were made at, and the profile's generation now (read together). */
export interface StoredSnapshot {
  /**
   * The bytes as written: one buffer, or (storage that keeps a large snapshot in parts) its parts
   * in order, unjoined, so that a vector snapshot's chunks stay where they were read.
   */
  bytes: SnapshotBytes;
  generation: number;
  current: number;
}

/**
 * The storage a {@link PersistedVectorBackend} writes through: one profile's rows at a time. Each
 * call is one atomic write or one read; the backend validates everything before it calls `put`.
 *
 * Storage may also keep snapshots (structures derived from the rows, such as a keyword index,
 * that are slow to rebuild): then `put` and `delete` report the {@link GenerationChange},
 * `loadGeneration` reads the rows with their generation, and snapshots are read and written
 * against it. Storage without them works as before, only without snapshots.
 */
export interface VectorRows {
  /** Open the storage; optional and idempotent. */
  connect?(): Promise<void>;
  /** Every row of `profile`, in a stable order. */
  load(profile: string): Promise<readonly VectorRow[]> | readonly VectorRow[];
  /** Insert or replace `rows` of `profile`, all or none. */
  put(profile: string, rows: readonly VectorRow[]): Promise<void | GenerationChange> | void | GenerationChange;
  /** Remove the rows of `profile` with these ids (ids that do not exist are ignored), all or none. */
  delete(profile: string, ids: readonly string[]): Promise<void | GenerationChange> | void | GenerationChange;
  /** Every row of `profile` and the profile's generation, read in one transaction. */
  loadGeneration?(profile: string): Promise<{ rows: readonly VectorRow[]; generation: number }> | { rows: readonly VectorRow[]; generation: number };
  /** The snapshot `name` of `profile`, if one was written. */
  readSnapshot?(profile: string, name: string): Promise<StoredSnapshot | undefined> | StoredSnapshot | undefined;
  /** Store `bytes` as snapshot `name` of `profile` made at `generation`, only if that is still the profile's generation; returns whether it was stored. */
  writeSnapshot?(profile: string, name: string, generation: number, bytes: Uint8Array): Promise<boolean> | boolean;
  /**
   * The metadata of the rows of `profile` with these ids, in their order (undefined for an id
   * without a row). Storage that reads it keeps metadata out of the vector snapshot: a restart
   * then reads the vectors only, and a query the metadata of its hits.
   */
  readMetadata?(
    profile: string,
    ids: readonly string[],
  ): Promise<ReadonlyArray<Record<string, unknown> | undefined>> | ReadonlyArray<Record<string, unknown> | undefined>;
}

/**
 * What a vector backend that keeps snapshots offers the structures derived from its records
 * (the RAG keyword index): a snapshot is handed back only while it matches the stored records,
 * so a stale one is never used.
 */
export interface VectorSnapshots {
  /** The generation of `profile` this backend's records reflect, or undefined when it cannot tell (storage without snapshots, or written by someone else since it loaded). */
  snapshotGeneration(profile: string): Promise<number | undefined>;
  /** Snapshot `name` of `profile` if it was made at the current generation, which this backend's records also reflect (as storage read it: one buffer or its parts). */
  readSnapshot(profile: string, name: string): Promise<SnapshotBytes | undefined>;
  /** Store snapshot `name` of `profile` made at `generation` (from {@link snapshotGeneration}); false when the records have moved on since. */
  writeSnapshot(profile: string, name: string, generation: number, bytes: Uint8Array): Promise<boolean>;
  /** The metadata of the profile's records `ids` as this backend holds them now (undefined for a record it does not hold). */
  metadataOf(profile: string, ids: readonly string[]): Promise<Array<Record<string, unknown> | undefined>>;
  /** Snapshot the profile's vectors themselves, so the next start reads one value instead of every row; false when storage keeps no snapshots or the records moved on. */
  snapshotVectors(profile: string): Promise<boolean>;
}

/** Whether `backend` keeps snapshots ({@link VectorSnapshots}). */
export function hasVectorSnapshots<T extends object>(backend: T): backend is T & VectorSnapshots {
  const candidate = backend as Partial<Record<keyof VectorSnapshots, unknown>>;
  return (
    typeof candidate.snapshotGeneration === 'function' &&
    typeof candidate.readSnapshot === 'function' &&
    typeof candidate.writeSnapshot === 'function' &&
    typeof candidate.metadataOf === 'function' &&
    typeof candidate.snapshotVectors === 'function'
  );
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

/** The name of the vectors' own snapshot. */
export const VECTOR_SNAPSHOT = 'vectors';
/** The name of an approximate index's trained structure ({@link IvfVectorIndex.serialise}). */
export const IVF_SNAPSHOT = 'ivf';

/** A loaded profile: its index, and where the metadata of records loaded from a snapshot is read (on use). */
interface LoadedProfile {
  index: VectorPartition;
  lazy: LoadedMetadata | undefined;
}

/**
 * A {@link VectorBackend} persisted through a {@link VectorRows} port and searched in memory: a
 * profile's rows are read once into a {@link FlatVectorIndex} (never re-embedded), and every
 * write goes to storage first, then to the index, so the index never holds what storage lost.
 * A profile whose rows fail to load is read again on the next call.
 *
 * When storage keeps snapshots, a profile loads from its vector snapshot while that matches the
 * stored rows (one value to read; metadata parsed only for the records asked for, and read from
 * their rows where storage can: then the snapshot holds vectors and ids only), and from the
 * rows otherwise, after which it snapshots them for the next start. A snapshot holds the index's
 * normalised vectors, which the index normalises again on load: a no-op in every case measured
 * (normalising a unit vector in float32 twice gives the same bits as once).
 *
 * @example
 * const vectors = new PersistedVectorBackend(256, rowsInMyDatabase);
 * await vectors.upsert('demo', [{ id: 'a', vector }]);
 */
export class PersistedVectorBackend implements VectorBackend, VectorSnapshots {
  readonly dimension: number;
  readonly #rows: VectorRows;
  readonly #loaded = new Map<string, Promise<LoadedProfile>>();
  /** The generation each loaded profile's index reflects; absent when unknown. */
  readonly #generations = new Map<string, number>();
  readonly #options: InMemoryVectorOptions;

  /** `options` choose each profile's index as for {@link InMemoryVectorBackend} (exact up to 50,000 records by default). */
  constructor(dimension: number, rows: VectorRows, options: InMemoryVectorOptions = {}) {
    if (!Number.isInteger(dimension) || dimension < 1)
      throw new ValidationError(`dimension must be a positive integer, got ${dimension}`, { code: 'invalid_dimension' });
    this.dimension = dimension;
    this.#rows = rows;
    this.#options = options;
    createVectorIndex(dimension, options);
  }

  async connect(): Promise<void> {
    await this.#rows.connect?.();
  }

  #profile(profile: string): Promise<LoadedProfile> {
    parseOrThrow(VectorProfileSchema, profile, 'profile', 'invalid_profile');
    let loaded = this.#loaded.get(profile);
    if (!loaded) {
      loaded = this.#load(profile);
      this.#loaded.set(profile, loaded);
      loaded.catch(() => this.#loaded.delete(profile));
    }
    return loaded;
  }

  async #index(profile: string): Promise<VectorPartition> {
    return (await this.#profile(profile)).index;
  }

  async #load(profile: string): Promise<LoadedProfile> {
    this.#generations.delete(profile);
    const dim = this.dimension;
    // An approximate index's stored structure, read beside the vectors (2–4 ms of a reload's first query in Chromium); a failure counts where awaited.
    const ivf =
      this.#rows.readSnapshot && this.#options.index !== 'exact' ? Promise.resolve().then(() => this.#rows.readSnapshot!(profile, IVF_SNAPSHOT)) : undefined;
    ivf?.catch(() => undefined);
    const stored = this.#rows.readSnapshot && this.#rows.loadGeneration ? await this.#rows.readSnapshot(profile, VECTOR_SNAPSHOT) : undefined;
    const decoded = stored && stored.generation === stored.current ? decodeVectorSnapshot(stored.bytes, dim) : undefined;
    const index = decoded && this.#fromSnapshot(profile, decoded);
    if (index) {
      await this.#restoreIvf(index.index, ivf);
      this.#generations.set(profile, stored!.current);
      return index;
    }
    const loaded = this.#rows.loadGeneration ? await this.#rows.loadGeneration(profile) : { rows: await this.#rows.load(profile), generation: undefined };
    const rows = loaded.rows;
    const flat = createVectorIndex(dim, this.#options, rows.length);
    flat.upsert(rows.map((row) => ({ id: row.id, vector: vectorFromBytes(row.bytes, dim, `${profile}/${row.id}`), metadata: row.metadata })));
    await this.#restoreIvf(flat, ivf);
    if (loaded.generation === undefined) return { index: flat, lazy: undefined };
    this.#generations.set(profile, loaded.generation);
    const state: LoadedProfile = { index: flat, lazy: undefined };
    // A snapshot is a cache: failing to write one costs the next start time, not correctness.
    await this.#snapshot(profile, state).catch(() => false);
    return state;
  }

  // The index of a decoded snapshot and where its records' metadata is read; undefined when the
  // snapshot cannot serve (repeated ids, or no metadata and storage that cannot read it).
  #fromSnapshot(profile: string, decoded: DecodedVectors): LoadedProfile | undefined {
    const index = createVectorIndex(this.dimension, this.#options, decoded.ids.length);
    if (decoded.metadata) {
      const snapshot = new SnapshotMetadata({ ...decoded, metadata: decoded.metadata });
      if (!snapshot.consistent) return undefined;
      index.loadStored(decoded.ids, decoded.chunks);
      return { index, lazy: snapshotSource(snapshot) };
    }
    const rows = this.#rows;
    if (!rows.readMetadata) return undefined;
    try {
      index.loadStored(decoded.ids, decoded.chunks);
    } catch (error) {
      if (error instanceof ValidationError && error.code === 'invalid_record_id') return undefined;
      throw error;
    }
    return {
      index,
      lazy: new RowMetadata(
        (id) => index.has(id),
        (ids) => rows.readMetadata!(profile, ids),
      ),
    };
  }

  async upsert(profile: string, records: readonly VectorRecord[]): Promise<void> {
    const { index, lazy } = await this.#profile(profile);
    for (const record of records) index.validate(record);
    const change = await this.#rows.put(
      profile,
      records.map((r) => ({ id: r.id, bytes: vectorToBytes(r.vector), metadata: { ...(r.metadata ?? {}) } })),
    );
    index.upsert(records);
    lazy?.forget(records.map((r) => r.id));
    this.#moved(profile, change);
  }

  async search(profile: string, query: Float32Array, options?: VectorSearchOptions): Promise<VectorHit[]> {
    parseOrThrow(VectorSearchOptionsSchema, options ?? {}, 'search options');
    const { index, lazy } = await this.#profile(profile);
    const trained = index instanceof IvfVectorIndex ? index.quantiser : null;
    // Training a large index takes seconds: in slices, so the event loop keeps turning.
    if (index instanceof IvfVectorIndex && !options?.exact && index.needsTraining) await index.trainInSlices();
    const hits = index.search(query, options);
    // A search that trained the approximate index keeps its structure for the next start (a cache: failing costs time only).
    if (index instanceof IvfVectorIndex && index.quantiser !== trained) await this.#saveIvf(profile, index).catch(() => false);
    return options?.metadata === false ? hits : withLoadedMetadata(hits, lazy);
  }

  async delete(profile: string, ids: readonly string[]): Promise<number> {
    const { index, lazy } = await this.#profile(profile);
    if (!ids.length) return 0;
    const change = await this.#rows.delete(profile, ids);
    const removed = index.delete(ids);
    lazy?.forget(ids);
    this.#moved(profile, change);
    return removed;
  }

  async snapshotGeneration(profile: string): Promise<number | undefined> {
    await this.#profile(profile);
    return this.#generations.get(profile);
  }

  async readSnapshot(profile: string, name: string): Promise<SnapshotBytes | undefined> {
    const rows = this.#rows;
    if (!rows.readSnapshot) return undefined;
    // Read while the profile loads (the first query after a restart asks for both): storage that reads
    // asynchronously overlaps the two, and the stamps are compared once both are in.
    const read = Promise.resolve().then(() => rows.readSnapshot!(profile, name));
    // Its failure matters only if the profile's generation is known (handled here, rethrown below).
    read.catch(() => undefined);
    const generation = await this.snapshotGeneration(profile);
    if (generation === undefined) return undefined;
    const stored = await read;
    return stored && stored.generation === stored.current && stored.current === generation ? stored.bytes : undefined;
  }

  async writeSnapshot(profile: string, name: string, generation: number, bytes: Uint8Array): Promise<boolean> {
    if (!this.#rows.writeSnapshot || generation !== (await this.snapshotGeneration(profile))) return false;
    return this.#rows.writeSnapshot(profile, name, generation, bytes);
  }

  async metadataOf(profile: string, ids: readonly string[]): Promise<Array<Record<string, unknown> | undefined>> {
    const { index, lazy } = await this.#profile(profile);
    const held = ids.filter((id) => index.has(id)).map((id) => ({ id, metadata: index.get(id)!.metadata }));
    const found = new Map((await withLoadedMetadata(held, lazy)).map((item) => [item.id, item.metadata]));
    return ids.map((id) => found.get(id));
  }

  async snapshotVectors(profile: string): Promise<boolean> {
    return this.#snapshot(profile, await this.#profile(profile));
  }

  // Encode the index as it is now and store it stamped with the generation it reflects: vectors
  // and ids where storage reads metadata from the rows, else with the metadata, which from then
  // on is read from the snapshot too.
  async #snapshot(profile: string, state: LoadedProfile): Promise<boolean> {
    const generation = this.#generations.get(profile);
    if (generation === undefined || !this.#rows.writeSnapshot) return false;
    const { index, lazy } = state;
    const withMetadata = !this.#rows.readMetadata;
    const entries = index.ids().map((id) => ({ id, ...index.get(id)! }));
    const encoder = new TextEncoder();
    const records = withMetadata
      ? (await withLoadedMetadata(entries, lazy)).map(({ id, vector, metadata }) => ({ id, vector, metadataJson: encoder.encode(JSON.stringify(metadata)) }))
      : entries.map(({ id, vector }) => ({ id, vector }));
    const bytes = encodeVectorSnapshot(this.dimension, records, { metadata: withMetadata });
    if (!(await this.#rows.writeSnapshot(profile, VECTOR_SNAPSHOT, generation, bytes))) return false;
    const decoded = withMetadata ? decodeVectorSnapshot(bytes, this.dimension) : undefined;
    if (decoded?.metadata && this.#generations.get(profile) === generation)
      state.lazy = snapshotSource(new SnapshotMetadata({ ...decoded, metadata: decoded.metadata }));
    return true;
  }

  // An approximate index takes its stored structure rather than training again: any stored one
  // serves (rows written since go to their nearest list), and an unreadable one is trained over.
  async #restoreIvf(index: VectorPartition, read: Promise<StoredSnapshot | undefined> | undefined): Promise<void> {
    if (!(index instanceof IvfVectorIndex) || !read) return;
    const stored = await read;
    if (!stored) return;
    try {
      index.restore(joinedBytes(stored.bytes));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
    }
  }

  async #saveIvf(profile: string, index: IvfVectorIndex): Promise<boolean> {
    const generation = this.#generations.get(profile);
    const bytes = index.serialise();
    if (generation === undefined || !bytes || !this.#rows.writeSnapshot) return false;
    return this.#rows.writeSnapshot(profile, IVF_SNAPSHOT, generation, bytes);
  }

  // After a write: the index reflects the new generation only if nobody else wrote in between.
  #moved(profile: string, change: void | GenerationChange): void {
    const known = this.#generations.get(profile);
    if (change && known !== undefined && change.before === known) this.#generations.set(profile, change.after);
    else this.#generations.delete(profile);
  }

  async count(profile: string): Promise<number> {
    return (await this.#index(profile)).size;
  }

  async list(profile: string, options: { vectors?: boolean } = {}): Promise<VectorRecord[]> {
    const { index, lazy } = await this.#profile(profile);
    return withLoadedMetadata(index.records(options.vectors === true), lazy);
  }
}

/** `items` with the metadata of those loaded from a snapshot read where it is kept (all at once). */
async function withLoadedMetadata<T extends { id: string; metadata?: Record<string, unknown> }>(items: T[], lazy: LoadedMetadata | undefined): Promise<T[]> {
  const loaded = lazy ? items.filter((item) => lazy.has(item.id)) : [];
  if (!lazy || !loaded.length) return items;
  const metadata = await lazy.read(loaded.map((item) => item.id));
  const byId = new Map(loaded.map((item, i) => [item.id, metadata[i]!]));
  return items.map((item) => (byId.has(item.id) ? { ...item, metadata: byId.get(item.id)! } : item));
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
