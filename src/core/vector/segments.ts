/** A snapshot's bytes: one buffer, or its parts in order (as storage that keeps a large value in parts reads it). */
export type SnapshotBytes = Uint8Array | readonly Uint8Array[];

/**
 * Bytes held in one buffer or in parts, read by range without joining the parts: a range inside
 * one part is a view of it, one across parts a copy.
 */
export class Segments {
  readonly length: number;
  readonly #parts: readonly Uint8Array[];
  /** Where each part starts. */
  readonly #starts: number[] = [];

  constructor(bytes: SnapshotBytes) {
    this.#parts = bytes instanceof Uint8Array ? [bytes] : bytes;
    let at = 0;
    for (const part of this.#parts) {
      this.#starts.push(at);
      at += part.length;
    }
    this.length = at;
  }

  /** Bytes [start, end). */
  range(start: number, end: number): Uint8Array {
    if (start < 0 || start > end || end > this.length) throw new RangeError(`bytes ${start}…${end} are outside the snapshot's ${this.length}`);
    let p = this.#partAt(start);
    let offset = start - this.#starts[p]!;
    if (offset + end - start <= this.#parts[p]!.length) return this.#parts[p]!.subarray(offset, offset + end - start);
    const copy = new Uint8Array(end - start);
    for (let at = 0; at < copy.length; p++, offset = 0) {
      const part = this.#parts[p]!;
      const piece = part.subarray(offset, Math.min(part.length, offset + copy.length - at));
      copy.set(piece, at);
      at += piece.length;
    }
    return copy;
  }

  view(start: number, end: number): DataView {
    const bytes = this.range(start, end);
    return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** `count` floats from `start`: a view where they lie in one part at an aligned address. */
  floats(start: number, count: number): Float32Array {
    return this.words(Float32Array, start, count);
  }

  uint32s(start: number, count: number): Uint32Array {
    return this.words(Uint32Array, start, count);
  }

  /** `count` little-endian numbers of `Words` from `start`: a view where they lie in one part at an aligned address, else a copy. */
  words<T>(Words: { new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T; BYTES_PER_ELEMENT: number }, start: number, count: number): T {
    const bytes = this.range(start, start + count * Words.BYTES_PER_ELEMENT);
    return bytes.byteOffset % Words.BYTES_PER_ELEMENT === 0 ? new Words(bytes.buffer, bytes.byteOffset, count) : new Words(bytes.slice().buffer);
  }

  // The last part that starts at or before `offset` (parts may be empty).
  #partAt(offset: number): number {
    let low = 0;
    let high = this.#parts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.#starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

/** One buffer holding `bytes` (the buffer itself when it is one already). */
export function joinedBytes(bytes: SnapshotBytes): Uint8Array {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes.length === 1) return bytes[0]!;
  const joined = new Uint8Array(bytes.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of bytes) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}
