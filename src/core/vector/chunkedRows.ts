/** Rows per full chunk: 1 MiB of floats at 256 dimensions. */
export const CHUNK_SHIFT = 10;
export const CHUNK_ROWS = 1 << CHUNK_SHIFT;
export const CHUNK_MASK = CHUNK_ROWS - 1;
/** The smallest tail chunk; a growing tail doubles up to {@link CHUNK_ROWS}. */
const MIN_TAIL_ROWS = 16;

/**
 * Fixed-width float rows kept in chunks of {@link CHUNK_ROWS} rows instead of one growable
 * array: growing never copies more than the last, partial chunk (at most one chunk), and spare
 * room is bounded by that chunk. Row `r` lives in `chunks[r >> CHUNK_SHIFT]` at
 * `(r & CHUNK_MASK) * dimension`. Vectors are normalised to unit length on write.
 */
export class ChunkedRows {
  readonly dimension: number;
  /** Every chunk but the last holds exactly {@link CHUNK_ROWS} rows. */
  readonly chunks: Float32Array[] = [];

  constructor(dimension: number) {
    this.dimension = dimension;
  }

  /** Rows the chunks can hold without allocating. */
  get capacity(): number {
    const n = this.chunks.length;
    return n === 0 ? 0 : (n - 1) * CHUNK_ROWS + this.chunks[n - 1]!.length / this.dimension;
  }

  /** Bytes held by every chunk. */
  get byteLength(): number {
    let bytes = 0;
    for (const chunk of this.chunks) bytes += chunk.byteLength;
    return bytes;
  }

  /** Make room for `rows` rows in total; `exact` sizes the last chunk to fit, else it grows by doubling. */
  ensure(rows: number, exact = false): void {
    if (rows <= this.capacity) return;
    const dim = this.dimension;
    const last = this.chunks.length - 1;
    // Fill a partial tail chunk first (the only copy growth ever makes).
    if (last >= 0 && this.chunks[last]!.length < CHUNK_ROWS * dim) {
      const want = Math.min(CHUNK_ROWS, rows - last * CHUNK_ROWS);
      const held = this.chunks[last]!.length / dim;
      const next = exact ? want : Math.min(CHUNK_ROWS, Math.max(want, held * 2));
      const grown = new Float32Array(next * dim);
      grown.set(this.chunks[last]!);
      this.chunks[last] = grown;
    }
    while (this.capacity < rows) {
      const want = Math.min(CHUNK_ROWS, rows - this.chunks.length * CHUNK_ROWS);
      const size = exact || rows - this.chunks.length * CHUNK_ROWS >= CHUNK_ROWS ? want : Math.min(CHUNK_ROWS, Math.max(want, MIN_TAIL_ROWS));
      this.chunks.push(new Float32Array(size * dim));
    }
  }

  /** Drop room beyond `rows` rows: empty chunks go, the last one is cut to fit. */
  shrink(rows: number): void {
    const dim = this.dimension;
    const needed = Math.ceil(rows / CHUNK_ROWS);
    this.chunks.length = Math.min(this.chunks.length, needed);
    if (needed === 0) return;
    const tail = rows - (needed - 1) * CHUNK_ROWS;
    const last = this.chunks[needed - 1]!;
    if (last.length > tail * dim) this.chunks[needed - 1] = last.slice(0, tail * dim);
  }

  /**
   * Take `rows` rows already at unit length from `vectors` (row after row, in one array or in
   * chunks of {@link CHUNK_ROWS} rows, the last holding the rest) in place of any rows held. The
   * chunks become views of `vectors`, which the caller hands over: a start from a snapshot touches
   * no new memory for its vectors (copying 10 MB into fresh chunks was a sixth of the first query
   * after a restart), and later writes land in it.
   */
  load(vectors: Float32Array | readonly Float32Array[], rows: number): void {
    const perChunk = CHUNK_ROWS * this.dimension;
    const end = rows * this.dimension;
    if (!(vectors instanceof Float32Array)) {
      const last = vectors.length - 1;
      const whole = vectors.length === Math.ceil(rows / CHUNK_ROWS) && vectors.every((c, i) => c.length === (i < last ? perChunk : end - last * perChunk));
      if (!whole) throw new RangeError(`${rows} rows do not fill chunks of ${CHUNK_ROWS} rows as given`);
      this.chunks.length = 0;
      this.chunks.push(...vectors);
      return;
    }
    // Room made for rows that never came (an index sized for the load) is dropped.
    this.chunks.length = 0;
    for (let start = 0; start < end; start += perChunk) this.chunks.push(vectors.subarray(start, Math.min(end, start + perChunk)));
  }

  /** Write `vector` scaled to unit length (zero stays zero) into row `row`. */
  write(row: number, vector: Float32Array): void {
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
    const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
    const chunk = this.chunks[row >> CHUNK_SHIFT]!;
    const base = (row & CHUNK_MASK) * this.dimension;
    for (let i = 0; i < vector.length; i++) chunk[base + i] = vector[i]! * scale;
  }

  /** Copy row `from` over row `to`. */
  move(from: number, to: number): void {
    const dim = this.dimension;
    const source = this.chunks[from >> CHUNK_SHIFT]!;
    const start = (from & CHUNK_MASK) * dim;
    this.chunks[to >> CHUNK_SHIFT]!.set(source.subarray(start, start + dim), (to & CHUNK_MASK) * dim);
  }

  /** A view of row `row` (not a copy). */
  view(row: number): Float32Array {
    const base = (row & CHUNK_MASK) * this.dimension;
    return this.chunks[row >> CHUNK_SHIFT]!.subarray(base, base + this.dimension);
  }
}
