/**
 * Postings as keyword snapshots store them (version 3): a term's rows ascending, each written as
 * its gap from the one before less one, then its term frequency, both as unsigned LEB128
 * varints. Rows of nearby documents are close, so most postings take two bytes, and a term is
 * decoded only when a search first asks for it.
 */

/** One term's postings: the rows of the documents holding it and how often each does. */
export interface Postings {
  docs: Uint16Array | Uint32Array;
  tfs: Uint8Array | Uint16Array | Uint32Array;
}

/** A growable byte buffer that varints are appended to. */
export class VarintWriter {
  #bytes = new Uint8Array(1 << 16);
  length = 0;

  /** Append `value` (an integer in 0 … 2³² − 1). */
  write(value: number): void {
    if (this.length + 5 > this.#bytes.length) {
      const grown = new Uint8Array(this.#bytes.length * 2);
      grown.set(this.#bytes);
      this.#bytes = grown;
    }
    let rest = value;
    while (rest >= 0x80) {
      this.#bytes[this.length++] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.#bytes[this.length++] = rest;
  }

  /** The bytes written so far. */
  bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.length);
  }
}

/**
 * Write one term's postings: `rows` (distinct, in any order; sorted here) with each row's
 * frequency in `tfByRow`.
 */
export function writePostings(writer: VarintWriter, rows: Int32Array, tfByRow: Uint32Array): void {
  rows.sort();
  let previous = -1;
  for (const row of rows) {
    writer.write(row - previous - 1);
    writer.write(tfByRow[row]!);
    previous = row;
  }
}

/**
 * Decode one term's postings. What a damaged snapshot could hold is left out, never misread: a
 * row at or past `docCount` ends the term (rows only ascend), as does a varint that is cut off or
 * longer than five bytes.
 */
export function readPostings(bytes: Uint8Array, docCount: number): Postings {
  let ends = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! < 0x80) ends++;
  const most = ends >> 1;
  const docs = new Uint32Array(most);
  const tfs = new Uint32Array(most);
  let at = 0;
  let row = -1;
  let kept = 0;
  const next = (): number => {
    let value = 0;
    for (let scale = 1, n = 0; at < bytes.length && n < 5; scale *= 0x80, n++) {
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
    return -1;
  };
  while (kept < most) {
    const gap = next();
    const tf = next();
    if (gap < 0 || tf < 0) break;
    row += gap + 1;
    if (row >= docCount) break;
    docs[kept] = row;
    tfs[kept++] = tf;
  }
  return kept === most ? { docs, tfs } : { docs: docs.subarray(0, kept), tfs: tfs.subarray(0, kept) };
}

/** Ids in the order snapshots keep them (UTF-16 code units, as `<` compares strings). */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The row of `id` in `ids` (sorted by {@link compareIds}), by binary search; undefined when absent. */
export function rowOfSorted(ids: readonly string[], id: string): number | undefined {
  let low = 0;
  let high = ids.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const found = ids[mid]!;
    if (found === id) return mid;
    if (found < id) low = mid + 1;
    else high = mid - 1;
  }
  return undefined;
}
