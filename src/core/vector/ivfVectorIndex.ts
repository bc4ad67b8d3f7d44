import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { createSeededRandom } from '../ports.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { CHUNK_MASK, CHUNK_SHIFT, ChunkedRows } from './chunkedRows.ts';
import { prepareQuery, scanChunks, scanRows, scoreRow, type PreparedQuery } from './dotKernel.ts';
import { decodeIvf, encodeIvf } from './ivfCodec.ts';
import { nearestCentroid, sphericalKMeans } from './kmeans.ts';
import { TopK } from './topK.ts';
import { storedMetadata, validateRecord } from './vectorRecords.ts';
import { VectorSearchOptionsSchema, type VectorHit, type VectorRecord, type VectorSearchOptions } from './vectorBackend.ts';

/** Options of an {@link IvfVectorIndex}. */
export const IvfOptionsSchema = z.object({
  /** Below this many rows the index is not trained and every search is an exact scan. */
  trainAt: z.number().int().min(1).default(20_000),
  /** Lists probed per query, as a fraction of all lists (at least `minProbes`). */
  probeFraction: z.number().gt(0).max(1).default(0.01),
  minProbes: z.number().int().min(1).default(8),
  /** Seed of the k-means sample and starting centroids. */
  seed: z.number().int().default(1),
});
export type IvfOptions = z.input<typeof IvfOptionsSchema>;

/** k-means rounds for the coarse and the fine centroids. */
const ROUNDS = 6;
/** Training sample per list. */
const SAMPLE_PER_LIST = 24;
/** Retrain once the index has grown to this many times the size it was trained at. */
const RETRAIN_GROWTH = 4;

/** The trained quantiser: coarse centroids, fine centroids grouped by coarse parent. */
export interface IvfQuantiser {
  coarse: Float32Array;
  fine: Float32Array;
  /** Fine centroids of coarse `c` are `firstChild[c] … firstChild[c + 1] - 1`. */
  firstChild: Int32Array;
  /** Size of the index when it was trained. */
  trainedAt: number;
}

/**
 * An approximate (inverted-file) vector index for one partition: rows are partitioned by the
 * nearest of about √n centroids (two-level spherical k-means, seeded, so the same inputs give
 * the same index), and a query scans only the lists of the centroids nearest to it, scoring
 * each row exactly with the same kernel as {@link FlatVectorIndex} — so every hit's score is the
 * exact cosine, and only recall is approximate. Rows and deletes are kept as the flat index
 * keeps them; until it holds `trainAt` rows, or with `exact: true`, a search scans every row.
 */
export class IvfVectorIndex {
  readonly dimension: number;
  readonly options: z.output<typeof IvfOptionsSchema>;
  readonly #data: ChunkedRows;
  #ids: string[] = [];
  #metadata: Array<Record<string, unknown>> = [];
  #rows = new Map<string, number>();
  #quantiser: IvfQuantiser | null = null;
  #lists: Int32Array[] = [];
  #listSize = new Int32Array(0);
  #listOf = new Int32Array(0);
  #posOf = new Int32Array(0);

  constructor(dimension: number, options: IvfOptions = {}) {
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw new ValidationError(`dimension must be a positive integer, got ${dimension}`, { code: 'invalid_dimension' });
    }
    this.dimension = dimension;
    this.options = parseOrThrow(IvfOptionsSchema, options, 'index options');
    this.#data = new ChunkedRows(dimension);
  }

  get size(): number {
    return this.#ids.length;
  }

  /** Whether searches probe lists (true) or scan every row (false). */
  get trained(): boolean {
    return this.#quantiser !== null;
  }

  /** Number of lists (0 until trained). */
  get lists(): number {
    return this.#lists.length;
  }

  /** Bytes of vectors, centroids and list entries (ids and metadata not counted). */
  get byteLength(): number {
    const q = this.#quantiser;
    let bytes = this.#data.byteLength + this.#listOf.byteLength + this.#posOf.byteLength + this.#listSize.byteLength;
    for (const list of this.#lists) bytes += list.byteLength;
    return bytes + (q ? q.coarse.byteLength + q.fine.byteLength + q.firstChild.byteLength : 0);
  }

  /** The trained quantiser (shared, do not modify), or null. */
  get quantiser(): IvfQuantiser | null {
    return this.#quantiser;
  }

  validate(record: VectorRecord): void {
    validateRecord(record, this.dimension);
  }

  /** Insert or replace records; all are validated before any is stored. Trained indexes file each row in its list. */
  upsert(records: readonly VectorRecord[]): void {
    for (const record of records) this.validate(record);
    const fresh = records.reduce((n, r) => n + (this.#rows.has(r.id) ? 0 : 1), 0);
    this.#data.ensure(this.size + fresh);
    this.#ensureRowSlots(this.size + fresh);
    for (const record of records) {
      let row = this.#rows.get(record.id);
      if (row === undefined) {
        row = this.#ids.length;
        this.#ids.push(record.id);
        this.#metadata.push(storedMetadata(undefined));
        this.#rows.set(record.id, row);
      } else if (this.#quantiser) this.#unlist(row);
      this.#data.write(row, record.vector);
      this.#metadata[row] = storedMetadata(record.metadata);
      if (this.#quantiser) this.#list(row, this.#assign(row));
    }
  }

  get(id: string): { vector: Float32Array; metadata: Record<string, unknown> } | undefined {
    const row = this.#rows.get(id);
    if (row === undefined) return undefined;
    return { vector: this.#data.view(row).slice(), metadata: { ...this.#metadata[row]! } };
  }

  has(id: string): boolean {
    return this.#rows.has(id);
  }

  ids(): string[] {
    return [...this.#ids];
  }

  records(withVectors: boolean): VectorRecord[] {
    return this.ids()
      .sort()
      .map((id) => {
        const entry = this.get(id)!;
        return { id, vector: withVectors ? entry.vector : new Float32Array(0), metadata: entry.metadata };
      });
  }

  /** Remove records; returns how many existed. The last row moves into the hole, and its list entry with it. */
  delete(ids: readonly string[]): number {
    let removed = 0;
    for (const id of ids) {
      const row = this.#rows.get(id);
      if (row === undefined) continue;
      const last = this.#ids.length - 1;
      if (this.#quantiser) this.#unlist(row);
      if (row !== last) {
        this.#data.move(last, row);
        const moved = this.#ids[last]!;
        this.#ids[row] = moved;
        this.#metadata[row] = this.#metadata[last]!;
        this.#rows.set(moved, row);
        if (this.#quantiser) {
          const list = this.#listOf[last]!;
          const pos = this.#posOf[last]!;
          this.#lists[list]![pos] = row;
          this.#listOf[row] = list;
          this.#posOf[row] = pos;
        }
      }
      this.#ids.pop();
      this.#metadata.pop();
      this.#rows.delete(id);
      removed++;
    }
    if (this.size === 0) {
      this.#quantiser = null;
      this.#lists = [];
      this.#listSize = new Int32Array(0);
    }
    return removed;
  }

  /**
   * Train the quantiser on a seeded sample and file every row: about √n lists, coarse
   * centroids √(lists) of them, each split in proportion to its share of the sample.
   */
  train(): void {
    const n = this.size;
    if (n === 0) return;
    const dim = this.dimension;
    const lists = Math.max(1, Math.round(Math.sqrt(n)));
    const sampleSize = Math.min(n, lists * SAMPLE_PER_LIST);
    const random = createSeededRandom(this.options.seed);
    const order = Int32Array.from({ length: n }, (_, i) => i);
    const sample = new Float32Array(sampleSize * dim);
    for (let i = 0; i < sampleSize; i++) {
      const j = i + Math.floor(random.next() * (n - i));
      const swap = order[i]!;
      order[i] = order[j]!;
      order[j] = swap;
      sample.set(this.#data.view(order[i]!), i * dim);
    }
    const coarseCount = Math.max(1, Math.min(sampleSize, Math.round(Math.sqrt(lists))));
    const coarse = sphericalKMeans({ data: sample, count: sampleSize, dimension: dim }, coarseCount, ROUNDS, this.options.seed);
    const parent = new Int32Array(sampleSize);
    const members = new Int32Array(coarseCount);
    for (let p = 0; p < sampleSize; p++) members[(parent[p] = nearestCentroid(sample, p * dim, coarse, 0, coarseCount, dim))]!++;
    const children: Float32Array[] = [];
    const firstChild = new Int32Array(coarseCount + 1);
    for (let c = 0; c < coarseCount; c++) {
      const count = members[c]!;
      const own = new Float32Array(count * dim);
      for (let p = 0, at = 0; p < sampleSize; p++) if (parent[p] === c) own.set(sample.subarray(p * dim, (p + 1) * dim), dim * at++);
      const k = count === 0 ? 0 : Math.max(1, Math.round((lists * count) / sampleSize));
      const fine =
        count === 0 ? coarse.slice(c * dim, (c + 1) * dim) : sphericalKMeans({ data: own, count, dimension: dim }, k, ROUNDS, this.options.seed + c + 1);
      children.push(fine);
      firstChild[c + 1] = firstChild[c]! + fine.length / dim;
    }
    const fine = new Float32Array(firstChild[coarseCount]! * dim);
    children.forEach((child, c) => fine.set(child, firstChild[c]! * dim));
    const assignment = new Int32Array(n);
    this.#quantiser = { coarse, fine, firstChild, trainedAt: n };
    for (let row = 0; row < n; row++) assignment[row] = this.#assign(row);
    this.#fill(assignment);
  }

  /** The trained structure as bytes ({@link encodeIvf}, versioned), or null before training. */
  serialise(): Uint8Array | null {
    const quantiser = this.#quantiser;
    if (!quantiser) return null;
    return encodeIvf({ dimension: this.dimension, quantiser, ids: this.#ids, lists: this.#listOf.subarray(0, this.size) });
  }

  /**
   * Take a serialised structure instead of training: rows are filed in their stored lists by
   * id, and rows it does not name (written since it was saved) go to their nearest list. A
   * malformed or mismatched structure is a `ValidationError` and changes nothing.
   */
  restore(bytes: Uint8Array): void {
    const snapshot = decodeIvf(bytes);
    if (snapshot.dimension !== this.dimension) {
      throw new ValidationError(`stored index has ${snapshot.dimension} dimensions, expected ${this.dimension}`, { code: 'dimension_mismatch' });
    }
    const byId = new Map<string, number>();
    snapshot.ids.forEach((id, i) => byId.set(id, snapshot.lists[i]!));
    this.#quantiser = snapshot.quantiser;
    const assignment = new Int32Array(this.size);
    for (let row = 0; row < this.size; row++) assignment[row] = byId.get(this.#ids[row]!) ?? this.#assign(row);
    this.#fill(assignment);
  }

  /** Nearest records by cosine; approximate once trained, exact with `exact: true`. */
  search(query: Float32Array, options: VectorSearchOptions = {}): VectorHit[] {
    const { k, minScore, probes } = parseOrThrow(VectorSearchOptionsSchema, options, 'search options');
    const prepared = prepareQuery(query, this.dimension);
    if (this.size === 0 || prepared === null) return [];
    if (!options.exact && this.#stale()) this.train();
    const top = new TopK(Math.min(k, this.size));
    const target = { top, floor: minScore ?? -Infinity, ids: this.#ids };
    if (options.exact || !this.#quantiser) scanChunks(prepared, this.#data.chunks, this.size, target);
    else for (const list of this.#probe(prepared, probes)) scanRows(prepared, this.#data.chunks, this.#lists[list]!, this.#listSize[list]!, target);
    return top.sorted().map(({ score, id, payload }) => ({ id, score, metadata: { ...this.#metadata[payload]! } }));
  }

  #stale(): boolean {
    const q = this.#quantiser;
    return q === null ? this.size >= this.options.trainAt : this.size >= q.trainedAt * RETRAIN_GROWTH;
  }

  /** The lists to scan: those of the best-scoring fine centroids, ties to the lower list. */
  #probe(query: PreparedQuery, probes: number | undefined): Int32Array {
    const fine = this.#quantiser!.fine;
    const lists = this.#lists.length;
    const want = Math.min(lists, probes ?? Math.max(this.options.minProbes, Math.ceil(lists * this.options.probeFraction)));
    const best = new TopK(want);
    for (let c = 0; c < lists; c++) {
      const score = scoreRow(query, fine, c * this.dimension);
      if (score >= best.threshold) best.push(score, String(1e9 + c), c);
    }
    return Int32Array.from(best.sorted(), (item) => item.payload);
  }

  /** The row's list: the nearest fine centroid under the nearest coarse one. */
  #assign(row: number): number {
    const q = this.#quantiser!;
    const dim = this.dimension;
    const chunk = this.#data.chunks[row >> CHUNK_SHIFT]!;
    const base = (row & CHUNK_MASK) * dim;
    const c = nearestCentroid(chunk, base, q.coarse, 0, q.firstChild.length - 1, dim);
    return nearestCentroid(chunk, base, q.fine, q.firstChild[c]!, q.firstChild[c + 1]! - q.firstChild[c]!, dim);
  }

  /**
   * File every row in its list, first moving rows so each list is one run of consecutive rows:
   * a probe then reads memory in order (scattered rows scan at less than half the speed).
   */
  #fill(assignment: Int32Array): void {
    const lists = this.#quantiser!.firstChild[this.#quantiser!.firstChild.length - 1]!;
    const n = assignment.length;
    const sizes = new Int32Array(lists);
    for (const list of assignment) sizes[list] = sizes[list]! + 1;
    const start = new Int32Array(lists);
    for (let l = 1; l < lists; l++) start[l] = start[l - 1]! + sizes[l - 1]!;
    // order[to] = the row that moves to `to`: rows grouped by list, in row order within a list.
    const order = new Int32Array(n);
    const next = start.slice();
    for (let row = 0; row < n; row++) order[next[assignment[row]!]!++] = row;
    this.#permute(order);
    this.#lists = Array.from(sizes, (size) => new Int32Array(Math.max(4, size)));
    this.#listSize = new Int32Array(lists);
    for (let row = 0; row < n; row++) this.#list(row, assignment[order[row]!]!);
  }

  /** Move row `order[to]` to `to` for every `to`, following cycles with one spare row. */
  #permute(order: Int32Array): void {
    const n = order.length;
    const done = new Uint8Array(n);
    const spare = new Float32Array(this.dimension);
    for (let first = 0; first < n; first++) {
      if (done[first] || order[first] === first) continue;
      spare.set(this.#data.view(first));
      let to = first;
      for (;;) {
        done[to] = 1;
        const from = order[to]!;
        if (from === first) {
          this.#data.view(to).set(spare);
          break;
        }
        this.#data.move(from, to);
        to = from;
      }
    }
    const ids = this.#ids;
    const metadata = this.#metadata;
    this.#ids = Array.from(order, (row) => ids[row]!);
    this.#metadata = Array.from(order, (row) => metadata[row]!);
    this.#ids.forEach((id, row) => this.#rows.set(id, row));
  }

  #list(row: number, list: number): void {
    let entries = this.#lists[list]!;
    const pos = this.#listSize[list]!;
    if (pos === entries.length) {
      const grown = new Int32Array(entries.length * 2);
      grown.set(entries);
      this.#lists[list] = entries = grown;
    }
    entries[pos] = row;
    this.#listSize[list] = pos + 1;
    this.#listOf[row] = list;
    this.#posOf[row] = pos;
  }

  #unlist(row: number): void {
    const list = this.#listOf[row]!;
    const pos = this.#posOf[row]!;
    const entries = this.#lists[list]!;
    const last = --this.#listSize[list]!;
    if (pos !== last) {
      const moved = entries[last]!;
      entries[pos] = moved;
      this.#posOf[moved] = pos;
    }
  }

  #ensureRowSlots(rows: number): void {
    if (rows <= this.#listOf.length) return;
    const capacity = Math.max(rows, Math.ceil(this.#listOf.length * 1.25), 64);
    const listOf = new Int32Array(capacity);
    listOf.set(this.#listOf);
    const posOf = new Int32Array(capacity);
    posOf.set(this.#posOf);
    this.#listOf = listOf;
    this.#posOf = posOf;
  }
}
