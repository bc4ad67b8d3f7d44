import { SystemError, ValidationError } from '../errors.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { TopK } from './topK.ts';
import {
  RecordIdSchema,
  VectorProfileSchema,
  VectorSearchOptionsSchema,
  type VectorBackend,
  type VectorHit,
  type VectorRecord,
  type VectorSearchOptions,
} from './vectorBackend.ts';

/** Capacity grows by this factor: small enough that spare room stays under a quarter. */
const GROWTH = 1.25;
const MIN_GROWTH_ROWS = 64;
/** A query with at most 1/SPARSE_RATIO of its dimensions non-zero is scored by gathering only those. */
const SPARSE_RATIO = 4;

/**
 * An exact in-memory vector index for one partition: every vector lives in one contiguous,
 * growable `Float32Array`, normalised on insert, so a search is one linear scan of dot
 * products feeding a bounded top-k heap. Hand-written because it is the product's core and
 * must run unchanged in browsers, workers and Node.
 */
export class FlatVectorIndex {
  readonly dimension: number;
  #data: Float32Array;
  #ids: string[] = [];
  #metadata: Array<Record<string, unknown>> = [];
  #rows = new Map<string, number>();

  constructor(dimension: number, initialCapacity = 0) {
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw new ValidationError(`dimension must be a positive integer, got ${dimension}`, { code: 'invalid_dimension' });
    }
    this.dimension = dimension;
    this.#data = new Float32Array(Math.max(0, initialCapacity) * dimension);
  }

  /** Number of vectors held. */
  get size(): number {
    return this.#ids.length;
  }

  /** Rows the current buffer can hold without growing. */
  get capacity(): number {
    return this.#data.length / this.dimension;
  }

  /** Bytes held by the vector buffer. */
  get byteLength(): number {
    return this.#data.byteLength;
  }

  /** Make room for at least `rows` vectors in total, exactly (no spare). */
  reserve(rows: number): void {
    if (rows > this.capacity) this.#resize(rows);
  }

  /** Check a record without storing it; throws a `ValidationError`. */
  validate(record: VectorRecord): void {
    parseOrThrow(RecordIdSchema, record.id, 'record id', 'invalid_record_id');
    if (!(record.vector instanceof Float32Array)) throw new ValidationError(`record ${record.id}: vector must be a Float32Array`, { code: 'invalid_vector' });
    if (record.vector.length !== this.dimension) {
      throw new ValidationError(`record ${record.id}: vector has ${record.vector.length} dimensions, expected ${this.dimension}`, {
        code: 'dimension_mismatch',
      });
    }
    for (let i = 0; i < record.vector.length; i++) {
      if (!Number.isFinite(record.vector[i]!))
        throw new ValidationError(`record ${record.id}: vector has a non-finite value at ${i}`, { code: 'non_finite_vector' });
    }
  }

  /** Insert or replace records; all are validated before any is stored. */
  upsert(records: readonly VectorRecord[]): void {
    for (const record of records) this.validate(record);
    const fresh = records.reduce((n, r) => n + (this.#rows.has(r.id) ? 0 : 1), 0);
    if (this.size + fresh > this.capacity) this.#resize(Math.max(this.size + fresh, Math.ceil(this.capacity * GROWTH), this.capacity + MIN_GROWTH_ROWS));
    for (const record of records) {
      let row = this.#rows.get(record.id);
      if (row === undefined) {
        row = this.#ids.length;
        this.#ids.push(record.id);
        this.#metadata.push({});
        this.#rows.set(record.id, row);
      }
      this.#writeRow(row, record.vector);
      this.#metadata[row] = { ...(record.metadata ?? {}) };
    }
  }

  /** The stored (normalised) vector of `id`, as a copy; undefined when absent. */
  get(id: string): { vector: Float32Array; metadata: Record<string, unknown> } | undefined {
    const row = this.#rows.get(id);
    if (row === undefined) return undefined;
    const start = row * this.dimension;
    return { vector: this.#data.slice(start, start + this.dimension), metadata: { ...this.#metadata[row]! } };
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
    if (!(query instanceof Float32Array) || query.length !== this.dimension) {
      throw new ValidationError(`query must be a Float32Array of ${this.dimension} dimensions`, { code: 'dimension_mismatch' });
    }
    let norm = 0;
    for (let i = 0; i < query.length; i++) {
      const v = query[i]!;
      if (!Number.isFinite(v)) throw new ValidationError(`query has a non-finite value at ${i}`, { code: 'non_finite_vector' });
      norm += v * v;
    }
    if (this.size === 0 || norm === 0) return [];
    const inverse = 1 / Math.sqrt(norm);
    const q = Float32Array.from(query, (v) => v * inverse);
    const top = new TopK(Math.min(k, this.size));
    const floor = minScore ?? -Infinity;
    const data = this.#data;
    const dim = this.dimension;
    const ids = this.#ids;
    const n = this.size;
    // Short queries embed to a few non-zero dimensions: gathering only those is the same dot
    // product with a fraction of the work. Which path runs depends only on the query, so the
    // same query always gets the same scores.
    let nonZero = 0;
    for (let i = 0; i < dim; i++) if (q[i] !== 0) nonZero++;
    let threshold = -Infinity;
    if (nonZero * SPARSE_RATIO <= dim) {
      const at = new Int32Array(nonZero);
      const weight = new Float64Array(nonZero);
      for (let i = 0, j = 0; i < dim; i++) {
        if (q[i] !== 0) {
          at[j] = i;
          weight[j++] = q[i]!;
        }
      }
      for (let row = 0, base = 0; row < n; row++, base += dim) {
        let score = 0;
        for (let j = 0; j < nonZero; j++) score += weight[j]! * data[base + at[j]!]!;
        if (score < floor || score < threshold) continue;
        top.push(score, ids[row]!, row);
        threshold = top.threshold;
      }
      return this.#hits(top);
    }
    const tail = dim & 3;
    const body = dim - tail;
    for (let row = 0, base = 0; row < n; row++, base += dim) {
      // Four independent accumulators let the engine overlap the multiplies.
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      for (; i < body; i += 4) {
        s0 += q[i]! * data[base + i]!;
        s1 += q[i + 1]! * data[base + i + 1]!;
        s2 += q[i + 2]! * data[base + i + 2]!;
        s3 += q[i + 3]! * data[base + i + 3]!;
      }
      for (; i < dim; i++) s0 += q[i]! * data[base + i]!;
      const score = s0 + s1 + (s2 + s3);
      if (score < floor || score < threshold) continue;
      top.push(score, ids[row]!, row);
      threshold = top.threshold;
    }
    return this.#hits(top);
  }

  #hits(top: TopK): VectorHit[] {
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
        const dim = this.dimension;
        this.#data.copyWithin(row * dim, last * dim, last * dim + dim);
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

  /** Drop spare capacity so the buffer holds exactly `size` rows. */
  compact(): void {
    if (this.capacity > this.size) this.#resize(this.size);
  }

  #writeRow(row: number, vector: Float32Array): void {
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
    const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
    const base = row * this.dimension;
    for (let i = 0; i < vector.length; i++) this.#data[base + i] = vector[i]! * scale;
  }

  #resize(rows: number): void {
    const next = new Float32Array(rows * this.dimension);
    next.set(this.#data.subarray(0, Math.min(this.#data.length, next.length)));
    this.#data = next;
  }
}

/**
 * The in-memory {@link VectorBackend}: one {@link FlatVectorIndex} per profile, so profiles
 * never share a buffer, a scan, or a count.
 */
export class InMemoryVectorBackend implements VectorBackend {
  readonly dimension: number;
  #connected = false;
  #partitions = new Map<string, FlatVectorIndex>();

  constructor(dimension: number) {
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw new ValidationError(`dimension must be a positive integer, got ${dimension}`, { code: 'invalid_dimension' });
    }
    this.dimension = dimension;
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

  #partition(profile: string, create: true): FlatVectorIndex;
  #partition(profile: string, create: false): FlatVectorIndex | undefined;
  #partition(profile: string, create: boolean): FlatVectorIndex | undefined {
    if (!this.#connected) throw new SystemError('vector backend used before connect()', { code: 'not_connected' });
    parseOrThrow(VectorProfileSchema, profile, 'profile', 'invalid_profile');
    let partition = this.#partitions.get(profile);
    if (!partition && create) {
      partition = new FlatVectorIndex(this.dimension);
      this.#partitions.set(profile, partition);
    }
    return partition;
  }
}
