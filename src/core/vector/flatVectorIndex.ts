import { SystemError, ValidationError } from '../errors.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { ChunkedRows } from './chunkedRows.ts';
import { prepareQuery, scanChunks } from './dotKernel.ts';
import { IvfVectorIndex, type IvfOptions } from './ivfVectorIndex.ts';
import { TopK } from './topK.ts';
import { loadStoredRows, storedMetadata, validateRecord } from './vectorRecords.ts';
import {
  VectorProfileSchema,
  VectorSearchOptionsSchema,
  type VectorBackend,
  type VectorHit,
  type VectorRecord,
  type VectorSearchOptions,
} from './vectorBackend.ts';

/**
 * An exact in-memory vector index for one partition: vectors live in fixed-size chunks
 * ({@link ChunkedRows}: growing never copies more than one chunk), normalised on insert, so a
 * search is one linear scan of dot products feeding a bounded top-k heap. Hand-written because
 * it is the product's core and must run unchanged in browsers, workers and Node.
 */
export class FlatVectorIndex {
  readonly dimension: number;
  readonly #data: ChunkedRows;
  #ids: string[] = [];
  #metadata: Array<Record<string, unknown>> = [];
  #rows = new Map<string, number>();

  constructor(dimension: number, initialCapacity = 0) {
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw new ValidationError(`dimension must be a positive integer, got ${dimension}`, { code: 'invalid_dimension' });
    }
    this.dimension = dimension;
    this.#data = new ChunkedRows(dimension);
    if (initialCapacity > 0) this.#data.ensure(initialCapacity, true);
  }

  /** Number of vectors held. */
  get size(): number {
    return this.#ids.length;
  }

  /** Rows the current chunks can hold without allocating. */
  get capacity(): number {
    return this.#data.capacity;
  }

  /** Bytes held by the vector chunks. */
  get byteLength(): number {
    return this.#data.byteLength;
  }

  /** Make room for at least `rows` vectors in total, exactly (no spare). */
  reserve(rows: number): void {
    this.#data.ensure(rows, true);
  }

  /** Check a record without storing it; throws a `ValidationError`. */
  validate(record: VectorRecord): void {
    validateRecord(record, this.dimension);
  }

  /** Insert or replace records; all are validated before any is stored. */
  upsert(records: readonly VectorRecord[]): void {
    for (const record of records) this.validate(record);
    const fresh = records.reduce((n, r) => n + (this.#rows.has(r.id) ? 0 : 1), 0);
    this.#data.ensure(this.size + fresh);
    for (const record of records) {
      let row = this.#rows.get(record.id);
      if (row === undefined) {
        row = this.#ids.length;
        this.#ids.push(record.id);
        this.#metadata.push(storedMetadata(undefined));
        this.#rows.set(record.id, row);
      }
      this.#data.write(row, record.vector);
      this.#metadata[row] = storedMetadata(record.metadata);
    }
  }

  /** Fill this empty index with rows stored normalised (a snapshot of an index), as they are (in one array or in chunks of `CHUNK_ROWS` rows); the index keeps `vectors` as its storage (no copy). */
  loadStored(ids: readonly string[], vectors: Float32Array | readonly Float32Array[]): void {
    ({ ids: this.#ids, rows: this.#rows, metadata: this.#metadata } = loadStoredRows(ids, vectors, this.#data, this.size));
  }

  /** The stored (normalised) vector of `id`, as a copy; undefined when absent. */
  get(id: string): { vector: Float32Array; metadata: Record<string, unknown> } | undefined {
    const row = this.#rows.get(id);
    if (row === undefined) return undefined;
    return { vector: this.#data.view(row).slice(), metadata: { ...this.#metadata[row]! } };
  }

  has(id: string): boolean {
    return this.#rows.has(id);
  }

  /** Every record sorted by id, with copies of the stored vectors when `withVectors` (else empty vectors). */
  records(withVectors: boolean): VectorRecord[] {
    return this.ids()
      .sort()
      .map((id) => {
        const entry = this.get(id)!;
        return { id, vector: withVectors ? entry.vector : new Float32Array(0), metadata: entry.metadata };
      });
  }

  /** Every id, in insertion order (deletes move the last row into the hole). */
  ids(): string[] {
    return [...this.#ids];
  }

  /** Exact k-nearest search by cosine similarity. */
  search(query: Float32Array, options: VectorSearchOptions = {}): VectorHit[] {
    const { k, minScore } = parseOrThrow(VectorSearchOptionsSchema, options, 'search options');
    const prepared = prepareQuery(query, this.dimension);
    if (this.size === 0 || prepared === null) return [];
    const top = new TopK(Math.min(k, this.size));
    scanChunks(prepared, this.#data.chunks, this.size, { top, floor: minScore ?? -Infinity, ids: this.#ids });
    return top.sorted().map(({ score, id, payload }) => ({ id, score, metadata: { ...this.#metadata[payload]! } }));
  }

  /** Remove records; returns how many existed. */
  delete(ids: readonly string[]): number {
    let removed = 0;
    for (const id of ids) {
      const row = this.#rows.get(id);
      if (row === undefined) continue;
      const last = this.#ids.length - 1;
      if (row !== last) {
        this.#data.move(last, row);
        const moved = this.#ids[last]!;
        this.#ids[row] = moved;
        this.#metadata[row] = this.#metadata[last]!;
        this.#rows.set(moved, row);
      }
      this.#ids.pop();
      this.#metadata.pop();
      this.#rows.delete(id);
      removed++;
    }
    return removed;
  }

  /** Drop spare capacity so the chunks hold exactly `size` rows. */
  compact(): void {
    this.#data.shrink(this.size);
  }
}

/** How an {@link InMemoryVectorBackend} indexes each profile. */
export interface InMemoryVectorOptions {
  /**
   * `auto` (default): exact scans until a profile holds `approximateAbove` records, then an
   * {@link IvfVectorIndex}; `exact`: always a {@link FlatVectorIndex}; `approximate`: an
   * inverted-file index trained from `ivf.trainAt` records.
   */
  index?: 'auto' | 'exact' | 'approximate';
  approximateAbove?: number;
  ivf?: IvfOptions;
}

/** Records per profile above which `auto` switches to approximate search. */
export const APPROXIMATE_ABOVE = 50_000;

/** One profile's index: exact, or approximate above a size. */
export type VectorPartition = FlatVectorIndex | IvfVectorIndex;
type Partition = VectorPartition;

/** A profile's index as {@link InMemoryVectorOptions} choose it (the options are checked here). */
export function createVectorIndex(dimension: number, options: InMemoryVectorOptions = {}, initialCapacity = 0): VectorPartition {
  const { index = 'auto', approximateAbove = APPROXIMATE_ABOVE, ivf = {} } = options;
  if (!['auto', 'exact', 'approximate'].includes(index)) {
    throw new ValidationError(`index must be auto, exact or approximate, got ${String(index)}`, { code: 'invalid_options' });
  }
  if (index === 'exact') return new FlatVectorIndex(dimension, initialCapacity);
  return new IvfVectorIndex(dimension, index === 'auto' ? { ...ivf, trainAt: approximateAbove } : ivf);
}

/**
 * The in-memory {@link VectorBackend}: one index per profile, so profiles never share a
 * buffer, a scan, or a count. Search options `exact` and `probes` reach approximate indexes.
 */
export class InMemoryVectorBackend implements VectorBackend {
  readonly dimension: number;
  readonly #options: InMemoryVectorOptions;
  #connected = false;
  #partitions = new Map<string, Partition>();

  constructor(dimension: number, options: InMemoryVectorOptions = {}) {
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw new ValidationError(`dimension must be a positive integer, got ${dimension}`, { code: 'invalid_dimension' });
    }
    this.dimension = dimension;
    this.#options = options;
    // Check the index options once, here, rather than at a profile's first write.
    this.#create();
  }

  async connect(): Promise<void> {
    this.#connected = true;
  }

  async upsert(profile: string, records: readonly VectorRecord[]): Promise<void> {
    this.#partition(profile, true).upsert(records);
  }

  async search(profile: string, query: Float32Array, options?: VectorSearchOptions): Promise<VectorHit[]> {
    const partition = this.#partition(profile, false);
    if (!partition) {
      // Validate the query the same way an empty partition would.
      return new FlatVectorIndex(this.dimension).search(query, options);
    }
    // An index due for training trains in slices first, so the event loop keeps turning.
    if (partition instanceof IvfVectorIndex && !options?.exact && partition.needsTraining) {
      parseOrThrow(VectorSearchOptionsSchema, options ?? {}, 'search options');
      await partition.trainInSlices();
    }
    return partition.search(query, options);
  }

  async delete(profile: string, ids: readonly string[]): Promise<number> {
    return this.#partition(profile, false)?.delete(ids) ?? 0;
  }

  async count(profile: string): Promise<number> {
    return this.#partition(profile, false)?.size ?? 0;
  }

  async list(profile: string, options: { vectors?: boolean } = {}): Promise<VectorRecord[]> {
    return this.#partition(profile, false)?.records(options.vectors === true) ?? [];
  }

  async close(): Promise<void> {
    this.#connected = false;
  }

  #create(): Partition {
    return createVectorIndex(this.dimension, this.#options);
  }

  #partition(profile: string, create: true): Partition;
  #partition(profile: string, create: false): Partition | undefined;
  #partition(profile: string, create: boolean): Partition | undefined {
    if (!this.#connected) throw new SystemError('vector backend used before connect()', { code: 'not_connected' });
    parseOrThrow(VectorProfileSchema, profile, 'profile', 'invalid_profile');
    let partition = this.#partitions.get(profile);
    if (!partition && create) {
      partition = this.#create();
      this.#partitions.set(profile, partition);
    }
    return partition;
  }
}
