/**
 * A profile's vectors as one snapshot: ids, Float32 values and (versions 1 and 2) metadata JSON
 * in a single buffer, so a restart reads one value instead of a row per record, and parses a
 * record's metadata only when it is asked for.
 *
 * Version 2 puts the vectors first and a fixed trailer last. Storage that keeps a large snapshot
 * in parts of {@link SNAPSHOT_PART_BYTES} may hand the parts back unjoined: the index's chunks of
 * {@link CHUNK_ROWS} rows then start on part boundaries (at 256 dimensions a chunk is a part; at
 * any power-of-two dimension none straddles two), and the index keeps the parts as its storage.
 * Joining 21 MB of parts into one buffer was a quarter of the first query after a restart at 10k
 * documents, most of it the cost of touching fresh memory. Version 1 snapshots are still read.
 *
 * Version 3 is version 2 without the metadata: storage that can read a record's metadata by id
 * keeps it only in the rows, and a restart reads half the bytes (at 10k documents of 1 KiB the
 * metadata, the chunks' text, was 11 of 21 MB, and a query needs that of its few hits).
 */
import { CHUNK_ROWS } from '../vector/chunkedRows.ts';
import { Segments, type SnapshotBytes } from '../vector/segments.ts';

export { joinedBytes, type SnapshotBytes } from '../vector/segments.ts';

/** The size of the parts storage keeps a large snapshot in (the SQLite store's). */
export const SNAPSHOT_PART_BYTES = 1 << 20;

const MAGIC = 0x56534331; // "1CSV" little-endian: CUGAr vector snapshot
/** Version 1: magic, version, dimension, count, ids length (u32 each), ids JSON, padding, vectors, offsets, metadata. */
const V1 = 1;
const V1_FIXED = 20;
/** Version 2: vectors, offsets, ids JSON, metadata, then ids length, metadata length, count, dimension, version, magic (u32 each). */
const V2 = 2;
/** Version 3: vectors, ids JSON, then the trailer of version 2 (its metadata length 0). */
const V3 = 3;
const TRAILER = 24;

/** One record as a snapshot holds it: the stored vector and (unless the snapshot leaves it out) its metadata as JSON text (UTF-8). */
export interface SnapshotRecord {
  id: string;
  vector: Float32Array;
  metadataJson?: Uint8Array;
}

/** A decoded snapshot: views into its bytes where they can be, nothing parsed but the ids. */
export interface DecodedVectors {
  ids: string[];
  /** The vectors, `CHUNK_ROWS` rows per chunk (the last may hold fewer). */
  chunks: Float32Array[];
  /** Record `row`'s metadata JSON; absent when the snapshot holds none (version 3). */
  metadata?(row: number): Uint8Array;
}

/**
 * Encode `records` of `dimension` values: with their metadata (version 2), or without it
 * (`metadata: false`, version 3) for storage that reads a record's metadata from its row.
 */
export function encodeVectorSnapshot(dimension: number, records: readonly SnapshotRecord[], options: { metadata?: boolean } = {}): Uint8Array {
  const withMetadata = options.metadata ?? true;
  if (withMetadata && records.some((r) => !r.metadataJson)) throw new TypeError('a snapshot with metadata needs the metadata JSON of every record');
  const ids = new TextEncoder().encode(JSON.stringify(records.map((r) => r.id)));
  const count = records.length;
  const offsetsAt = count * dimension * 4;
  const idsAt = withMetadata ? offsetsAt + (count + 1) * 4 : offsetsAt;
  const metadataAt = idsAt + ids.length;
  const metadataLength = withMetadata ? records.reduce((n, r) => n + r.metadataJson!.length, 0) : 0;
  const bytes = new Uint8Array(metadataAt + metadataLength + TRAILER);
  const vectors = new Float32Array(bytes.buffer, 0, count * dimension);
  records.forEach((record, i) => vectors.set(record.vector, i * dimension));
  if (withMetadata) {
    const offsets = new Uint32Array(bytes.buffer, offsetsAt, count + 1);
    let at = 0;
    records.forEach((record, i) => {
      offsets[i] = at;
      bytes.set(record.metadataJson!, metadataAt + at);
      at += record.metadataJson!.length;
    });
    offsets[count] = at;
  }
  bytes.set(ids, idsAt);
  const trailer = new DataView(bytes.buffer, bytes.length - TRAILER);
  [ids.length, metadataLength, count, dimension, withMetadata ? V2 : V3, MAGIC].forEach((value, i) => trailer.setUint32(i * 4, value, true));
  return bytes;
}

/** Decode a snapshot of `dimension`-value vectors; undefined for another version or dimension, or damaged bytes. */
export function decodeVectorSnapshot(input: SnapshotBytes, dimension: number): DecodedVectors | undefined {
  const bytes = new Segments(input);
  if (bytes.length >= 8) {
    const head = bytes.view(0, 8);
    // A version 2 snapshot opens with a float of a unit vector, never with these bits (≈ 5.8e13).
    if (head.getUint32(0, true) === MAGIC && head.getUint32(4, true) === V1) return decodeV1(bytes, dimension);
  }
  if (bytes.length < TRAILER) return undefined;
  const trailer = bytes.view(bytes.length - TRAILER, bytes.length);
  const [idsLength, metadataLength, count, dim, version, magic] = [0, 1, 2, 3, 4, 5].map((i) => trailer.getUint32(i * 4, true)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (magic !== MAGIC || (version !== V2 && version !== V3) || dim !== dimension) return undefined;
  const offsetsAt = count * dimension * 4;
  if (version === V3) {
    if (metadataLength !== 0 || offsetsAt + idsLength + TRAILER !== bytes.length) return undefined;
    return decoded(bytes, dimension, count, 0, undefined, [offsetsAt, idsLength], 0, 0);
  }
  const idsAt = offsetsAt + (count + 1) * 4;
  const metadataAt = idsAt + idsLength;
  if (metadataAt + metadataLength + TRAILER !== bytes.length) return undefined;
  return decoded(bytes, dimension, count, 0, offsetsAt, [idsAt, idsLength], metadataAt, metadataLength);
}

function decodeV1(bytes: Segments, dimension: number): DecodedVectors | undefined {
  if (bytes.length < V1_FIXED) return undefined;
  const view = bytes.view(0, V1_FIXED);
  const [dim, count, idsLength] = [2, 3, 4].map((i) => view.getUint32(i * 4, true)) as [number, number, number];
  if (dim !== dimension || V1_FIXED + idsLength > bytes.length) return undefined;
  const vectorsAt = (V1_FIXED + idsLength + 3) & ~3;
  const offsetsAt = vectorsAt + count * dimension * 4;
  const metadataAt = offsetsAt + (count + 1) * 4;
  if (metadataAt > bytes.length) return undefined;
  return decoded(bytes, dimension, count, vectorsAt, offsetsAt, [V1_FIXED, idsLength], metadataAt, bytes.length - metadataAt);
}

/** The ids, chunks and metadata (none without `offsetsAt`) of a snapshot laid out as given; undefined when its ids or offsets are damaged. */
function decoded(
  bytes: Segments,
  dimension: number,
  count: number,
  vectorsAt: number,
  offsetsAt: number | undefined,
  [idsAt, idsLength]: [number, number],
  metadataAt: number,
  metadataLength: number,
): DecodedVectors | undefined {
  let ids: unknown;
  try {
    ids = JSON.parse(new TextDecoder().decode(bytes.range(idsAt, idsAt + idsLength)));
  } catch {
    return undefined;
  }
  if (!Array.isArray(ids) || ids.length !== count || !ids.every((id) => typeof id === 'string')) return undefined;
  const chunks: Float32Array[] = [];
  for (let row = 0; row < count; row += CHUNK_ROWS) chunks.push(bytes.floats(vectorsAt + row * dimension * 4, Math.min(CHUNK_ROWS, count - row) * dimension));
  if (offsetsAt === undefined) return { ids: ids as string[], chunks };
  const offsets = bytes.uint32s(offsetsAt, count + 1);
  if (offsets[0] !== 0 || offsets[count] !== metadataLength) return undefined;
  for (let i = 0; i < count; i++) if (offsets[i]! > offsets[i + 1]!) return undefined;
  return {
    ids: ids as string[],
    chunks,
    metadata: (row) => bytes.range(metadataAt + offsets[row]!, metadataAt + offsets[row + 1]!),
  };
}

/**
 * The metadata of records loaded from a snapshot, parsed on first use. A record written or
 * deleted since is forgotten here (its metadata then lives with the index).
 */
export class SnapshotMetadata {
  readonly #decoded: Required<DecodedVectors>;
  readonly #rows: Map<string, number>;
  readonly #parsed = new Map<string, Record<string, unknown>>();
  readonly #decoder = new TextDecoder();

  constructor(decoded: Required<DecodedVectors>) {
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
    return row === undefined ? undefined : this.#decoded.metadata(row);
  }

  forget(ids: readonly string[]): void {
    for (const id of ids) {
      this.#rows.delete(id);
      this.#parsed.delete(id);
    }
  }
}
