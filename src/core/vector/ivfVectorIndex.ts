import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { createYielder } from '../ports.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { CHUNK_MASK, CHUNK_SHIFT, ChunkedRows } from './chunkedRows.ts';
import { prepareQuery, scanChunks, scanRows, scoreRow, type PreparedQuery } from './dotKernel.ts';
import { decodeIvf, encodeIvf } from './ivfCodec.ts';
import { nearestList, trainQuantiserSteps, type IvfQuantiser } from './ivfTraining.ts';
import { TopK } from './topK.ts';
import { loadStoredRows, storedMetadata, validateRecord } from './vectorRecords.ts';
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

/** Rows filed in their lists between two pauses of a build. */
const ROWS_PER_STEP = 256;
/** Retrain once the index has grown to this many times the size it was trained at. */
const RETRAIN_GROWTH = 4;

export type { IvfQuantiser } from './ivfTraining.ts';

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
  /** Bumped by every build and by whatever makes a build in progress moot; a build that sees it change stops. */
  #buildToken = 0;
  /** While a build files rows: each row's list so far, -1 for rows written since (filed when it finishes). */
  #filing: Int32Array | null = null;
  #building: Promise<void> | null = null;

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

  /** Whether the next approximate search would train: `trainAt` rows and no quantiser, or four times the rows it was trained at. */
  get needsTraining(): boolean {
    return this.#stale();
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
      if (this.#filing && row < this.#filing.length) this.#filing[row] = -1;
      this.#data.write(row, record.vector);
      this.#metadata[row] = storedMetadata(record.metadata);
      if (this.#quantiser) this.#list(row, this.#assign(row));
    }
  }

  /** Fill this empty, untrained index with rows stored normalised (a snapshot of an index), as they are (in one array or in chunks of `CHUNK_ROWS` rows); the index keeps `vectors` as its storage (no copy). */
  loadStored(ids: readonly string[], vectors: Float32Array | readonly Float32Array[]): void {
    ({ ids: this.#ids, rows: this.#rows, metadata: this.#metadata } = loadStoredRows(ids, vectors, this.#data, this.size));
    this.#ensureRowSlots(ids.length);
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
      const filing = this.#filing;
      if (filing && row < filing.length) filing[row] = row !== last && last < filing.length ? filing[last]! : -1;
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
      this.#abandonBuild();
      this.#quantiser = null;
      this.#lists = [];
      this.#listSize = new Int32Array(0);
    }
    return removed;
  }

  /**
   * Train the quantiser on a seeded sample and file every row: about √n lists, coarse
   * centroids √(lists) of them, each split in proportion to its share of the sample. Runs to
   * the end before it returns (a build in progress is abandoned); see {@link trainInSlices}.
   */
  train(): void {
    const steps = this.#trainSteps(++this.#buildToken);
    while (!steps.next().done);
  }

  /**
   * {@link train} in slices: `yieldNow` is awaited between steps of a few milliseconds of work
   * (by default a turn of the event loop every 20 ms), so a server or a tab keeps serving while
   * a large index trains. Searches meanwhile use the structure the index had (exact scans when
   * it had none); a concurrent call shares the build. Writes while it runs are allowed: the
   * quantiser comes from the sample taken when the build started and every row ends in its
   * nearest list, so the result (the same bytes as {@link train} at that moment, then the
   * writes) does not depend on when the slices ran. A synchronous {@link train},
   * {@link restore} or emptying the index abandons it.
   */
  trainInSlices(yieldNow: () => Promise<void> = createYielder()): Promise<void> {
    this.#building ??= this.#trainAsync(yieldNow).finally(() => {
      this.#building = null;
    });
    return this.#building;
  }

  async #trainAsync(yieldNow: () => Promise<void>): Promise<void> {
    const token = ++this.#buildToken;
    const steps = this.#trainSteps(token);
    while (!steps.next().done) {
      await yieldNow();
      if (token !== this.#buildToken) return;
    }
  }

  *#trainSteps(token: number): Generator<void, void, void> {
    const n = this.size;
    if (n === 0) return;
    const quantiser = yield* trainQuantiserSteps(this.#data, n, this.options.seed);
    const dim = this.dimension;
    const filing = new Int32Array(n).fill(-1);
    this.#filing = filing;
    for (let row = 0; row < Math.min(n, this.size); row++) {
      filing[row] = nearestList(quantiser, this.#data.chunks[row >> CHUNK_SHIFT]!, (row & CHUNK_MASK) * dim, dim);
      if (row % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield;
    }
    if (token !== this.#buildToken) return;
    this.#filing = null;
    this.#quantiser = quantiser;
    const assignment = new Int32Array(this.size);
    for (let row = 0; row < this.size; row++) assignment[row] = row < n && filing[row]! >= 0 ? filing[row]! : this.#assign(row);
    this.#fill(assignment);
  }

  #abandonBuild(): void {
    this.#buildToken++;
    this.#filing = null;
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
    this.#abandonBuild();
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

  /** The row's list under the current quantiser. */
  #assign(row: number): number {
    const dim = this.dimension;
    return nearestList(this.#quantiser!, this.#data.chunks[row >> CHUNK_SHIFT]!, (row & CHUNK_MASK) * dim, dim);
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
