/**
 * A profile's vectors as one snapshot: ids, Float32 values and metadata JSON in a single
 * buffer, so a restart reads one value instead of a row per record, and parses a record's
 * metadata only when it is asked for.
 */

/** Format version; a snapshot of another version is ignored (the rows are read instead), never misread. */
const VERSION = 1;
const MAGIC = 0x56534331; // "1CSV" little-endian: CUGAr vector snapshot
const FIXED = 20;

/** One record as a snapshot holds it: the stored vector and its metadata as JSON text (UTF-8). */
export interface SnapshotRecord {
  id: string;
  vector: Float32Array;
  metadataJson: Uint8Array;
}

/** A decoded snapshot: views into its buffer, nothing parsed but the ids. */
export interface DecodedVectors {
  ids: string[];
  /** `ids.length × dimension` values. */
  vectors: Float32Array;
  /** Record `i`'s metadata JSON is `metadata[offsets[i] … offsets[i + 1])`. */
  offsets: Uint32Array;
  metadata: Uint8Array;
}

/** Encode `records` of `dimension` values: magic, version, dimension, count, ids length (u32 each), ids JSON, padding, vectors, offsets, metadata. */
export function encodeVectorSnapshot(dimension: number, records: readonly SnapshotRecord[]): Uint8Array {
  const ids = new TextEncoder().encode(JSON.stringify(records.map((r) => r.id)));
  const vectorsAt = align(FIXED + ids.length);
  const offsetsAt = vectorsAt + records.length * dimension * 4;
  const metadataAt = offsetsAt + (records.length + 1) * 4;
  const metadataLength = records.reduce((n, r) => n + r.metadataJson.length, 0);
  const bytes = new Uint8Array(metadataAt + metadataLength);
  const view = new DataView(bytes.buffer);
  [MAGIC, VERSION, dimension, records.length, ids.length].forEach((value, i) => view.setUint32(i * 4, value, true));
  bytes.set(ids, FIXED);
  const vectors = new Float32Array(bytes.buffer, vectorsAt, records.length * dimension);
  const offsets = new Uint32Array(bytes.buffer, offsetsAt, records.length + 1);
  let at = 0;
  records.forEach((record, i) => {
    vectors.set(record.vector, i * dimension);
    offsets[i] = at;
    bytes.set(record.metadataJson, metadataAt + at);
    at += record.metadataJson.length;
  });
  offsets[records.length] = at;
  return bytes;
}

/** Decode a snapshot of `dimension`-value vectors; undefined for another version or dimension, or damaged bytes. */
export function decodeVectorSnapshot(input: Uint8Array, dimension: number): DecodedVectors | undefined {
  const bytes = input.byteOffset % 4 === 0 ? input : new Uint8Array(input);
  if (bytes.length < FIXED) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [magic, version, dim, count, idsLength] = [0, 1, 2, 3, 4].map((i) => view.getUint32(i * 4, true)) as [number, number, number, number, number];
  if (magic !== MAGIC || version !== VERSION || dim !== dimension || FIXED + idsLength > bytes.length) return undefined;
  let ids: unknown;
  try {
    ids = JSON.parse(new TextDecoder().decode(bytes.subarray(FIXED, FIXED + idsLength)));
  } catch {
    return undefined;
  }
  if (!Array.isArray(ids) || ids.length !== count || !ids.every((id) => typeof id === 'string')) return undefined;
  const vectorsAt = align(FIXED + idsLength);
  const offsetsAt = vectorsAt + count * dimension * 4;
  const metadataAt = offsetsAt + (count + 1) * 4;
  if (metadataAt > bytes.length) return undefined;
  const offsets = new Uint32Array(bytes.buffer, bytes.byteOffset + offsetsAt, count + 1);
  const metadata = bytes.subarray(metadataAt);
  if (offsets[0] !== 0 || offsets[count] !== metadata.length) return undefined;
  for (let i = 0; i < count; i++) if (offsets[i]! > offsets[i + 1]!) return undefined;
  return { ids: ids as string[], vectors: new Float32Array(bytes.buffer, bytes.byteOffset + vectorsAt, count * dimension), offsets, metadata };
}

function align(n: number): number {
  return (n + 3) & ~3;
}

/**
 * The metadata of records loaded from a snapshot, parsed on first use. A record written or
 * deleted since is forgotten here (its metadata then lives with the index).
 */
export class SnapshotMetadata {
  readonly #decoded: DecodedVectors;
  readonly #rows: Map<string, number>;
  readonly #parsed = new Map<string, Record<string, unknown>>();
  readonly #decoder = new TextDecoder();

  constructor(decoded: DecodedVectors) {
    this.#decoded = decoded;
    this.#rows = new Map(decoded.ids.map((id, row) => [id, row]));
  }

  /** Whether every id is distinct (a snapshot with repeated ids is damaged). */
  get consistent(): boolean {
    return this.#rows.size === this.#decoded.ids.length;
  }

  has(id: string): boolean {
    return this.#rows.has(id);
  }

  /** The record's metadata (a copy), or undefined when it is not held here; metadata that is not a JSON object reads as `{}`. */
  get(id: string): Record<string, unknown> | undefined {
    let parsed = this.#parsed.get(id);
    if (!parsed) {
      const json = this.json(id);
      if (!json) return undefined;
      try {
        const value: unknown = JSON.parse(this.#decoder.decode(json));
        parsed = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
      } catch {
        parsed = {};
      }
      this.#parsed.set(id, parsed);
    }
    return { ...parsed };
  }

  /** The record's metadata JSON as stored, or undefined when it is not held here. */
  json(id: string): Uint8Array | undefined {
    const row = this.#rows.get(id);
    if (row === undefined) return undefined;
    return this.#decoded.metadata.subarray(this.#decoded.offsets[row]!, this.#decoded.offsets[row + 1]!);
  }

  forget(ids: readonly string[]): void {
    for (const id of ids) {
      this.#rows.delete(id);
      this.#parsed.delete(id);
    }
  }
}
