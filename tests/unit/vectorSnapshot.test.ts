import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SNAPSHOT_PART_BYTES,
  SnapshotMetadata,
  decodeVectorSnapshot,
  encodeVectorSnapshot,
  joinedBytes,
  type SnapshotRecord,
} from '../../src/core/store/vectorSnapshot.ts';
import { CHUNK_ROWS } from '../../src/core/vector/chunkedRows.ts';

// A vector snapshot decodes to the same ids, vectors and metadata whether storage hands it back in
// one buffer or in parts cut anywhere; at 256 dimensions, parts of 1 MiB are the index's chunks
// and are kept as they are; snapshots of the first format are still read.

const encoder = new TextEncoder();

function records(count: number, dimension: number, seed = 1): SnapshotRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const vector = new Float32Array(dimension);
    for (let d = 0; d < dimension; d++) vector[d] = Math.sin(seed * 7 + i * 13 + d) / Math.sqrt(dimension);
    return { id: `doc-${i}`, vector, metadataJson: encoder.encode(JSON.stringify({ path: `p${i}.md`, text: 'é'.repeat(i % 50) })) };
  });
}

/** `bytes` cut at the given offsets, each part in a buffer of its own (as storage reads them). */
function cut(bytes: Uint8Array, at: readonly number[]): Uint8Array[] {
  const edges = [0, ...[...at].sort((a, b) => a - b), bytes.length];
  return edges.slice(1).map((end, i) => bytes.slice(edges[i], end));
}

function rowsOf(decoded: NonNullable<ReturnType<typeof decodeVectorSnapshot>>, dimension: number): Float32Array[] {
  const rows: Float32Array[] = [];
  for (const chunk of decoded.chunks) for (let at = 0; at < chunk.length; at += dimension) rows.push(chunk.slice(at, at + dimension));
  return rows;
}

function expectSame(decoded: ReturnType<typeof decodeVectorSnapshot>, input: readonly SnapshotRecord[], dimension: number): void {
  expect(decoded).toBeDefined();
  expect(decoded!.ids).toEqual(input.map((r) => r.id));
  const rows = rowsOf(decoded!, dimension);
  expect(rows).toEqual(input.map((r) => r.vector));
  decoded!.chunks.forEach((chunk, i) =>
    expect(chunk.length).toBe(i < decoded!.chunks.length - 1 ? CHUNK_ROWS * dimension : (input.length - i * CHUNK_ROWS) * dimension),
  );
  const metadata = new SnapshotMetadata(decoded as Required<NonNullable<typeof decoded>>);
  for (const record of input) expect([...metadata.json(record.id)!]).toEqual([...record.metadataJson!]);
}

/** The first format: magic, version 1, dimension, count, ids length, ids JSON, padding, vectors, offsets, metadata. */
function encodeV1(dimension: number, input: readonly SnapshotRecord[]): Uint8Array {
  const ids = encoder.encode(JSON.stringify(input.map((r) => r.id)));
  const vectorsAt = (20 + ids.length + 3) & ~3;
  const offsetsAt = vectorsAt + input.length * dimension * 4;
  const metadataAt = offsetsAt + (input.length + 1) * 4;
  const bytes = new Uint8Array(metadataAt + input.reduce((n, r) => n + r.metadataJson!.length, 0));
  const view = new DataView(bytes.buffer);
  [0x56534331, 1, dimension, input.length, ids.length].forEach((value, i) => view.setUint32(i * 4, value, true));
  bytes.set(ids, 20);
  let at = 0;
  input.forEach((record, i) => {
    new Uint8Array(bytes.buffer, vectorsAt + i * dimension * 4, dimension * 4).set(new Uint8Array(record.vector.buffer));
    view.setUint32(offsetsAt + i * 4, at, true);
    bytes.set(record.metadataJson!, metadataAt + at);
    at += record.metadataJson!.length;
  });
  view.setUint32(offsetsAt + input.length * 4, at, true);
  return bytes;
}

describe('vector snapshots', () => {
  it('decodes the same records from one buffer and from parts cut anywhere', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.constantFrom(3, 8, 16), fc.array(fc.nat(), { maxLength: 6 }), (count, dimension, cuts) => {
        const input = records(count, dimension);
        const bytes = encodeVectorSnapshot(dimension, input);
        expectSame(decodeVectorSnapshot(bytes, dimension), input, dimension);
        expectSame(
          decodeVectorSnapshot(
            cut(
              bytes,
              cuts.map((c) => c % (bytes.length + 1)),
            ),
            dimension,
          ),
          input,
          dimension,
        );
      }),
      { numRuns: 150 },
    );
  });

  it('keeps 1 MiB parts as the chunks at 256 dimensions, and copies only chunks that straddle parts at other widths', () => {
    const input = records(2 * CHUNK_ROWS + 300, 256);
    const bytes = encodeVectorSnapshot(256, input);
    const parts = cut(
      bytes,
      Array.from({ length: Math.floor(bytes.length / SNAPSHOT_PART_BYTES) }, (_, i) => (i + 1) * SNAPSHOT_PART_BYTES),
    );
    const decoded = decodeVectorSnapshot(parts, 256)!;
    expectSame(decoded, input, 256);
    expect(decoded.chunks.map((chunk) => chunk.buffer)).toEqual(parts.slice(0, 3).map((part) => part.buffer));
    expect(decoded.chunks.every((chunk, i) => chunk.buffer === parts[i]!.buffer && chunk.byteOffset === 0)).toBe(true);

    // 384 dimensions: a chunk is 1.5 MiB, so every one spans two parts and is copied, still right.
    const wide = records(CHUNK_ROWS + 10, 384);
    const wideBytes = encodeVectorSnapshot(384, wide);
    const wideParts = cut(wideBytes, [SNAPSHOT_PART_BYTES, 2 * SNAPSHOT_PART_BYTES]);
    expectSame(decodeVectorSnapshot(wideParts, 384), wide, 384);
  });

  it('leaves the metadata out on request (version 3): the same ids and vectors, a smaller snapshot, whole or in parts', () => {
    const input = records(2 * CHUNK_ROWS + 300, 256);
    const bare = encodeVectorSnapshot(
      256,
      input.map(({ id, vector }) => ({ id, vector })),
      { metadata: false },
    );
    expect(bare.length).toBeLessThan(encodeVectorSnapshot(256, input).length);
    for (const bytes of [bare, cut(bare, [SNAPSHOT_PART_BYTES, 2 * SNAPSHOT_PART_BYTES, 2 * SNAPSHOT_PART_BYTES + 17])]) {
      const decoded = decodeVectorSnapshot(bytes, 256)!;
      expect(decoded.ids).toEqual(input.map((r) => r.id));
      expect(rowsOf(decoded, 256)).toEqual(input.map((r) => r.vector));
      expect(decoded.metadata).toBeUndefined();
    }
    expect(decodeVectorSnapshot(bare.subarray(0, bare.length - 1), 256)).toBeUndefined();
    expect(decodeVectorSnapshot(bare, 128)).toBeUndefined();
    const claimsMetadata = bare.slice();
    new DataView(claimsMetadata.buffer).setUint32(claimsMetadata.length - 20, 5, true);
    expect(decodeVectorSnapshot(claimsMetadata, 256)).toBeUndefined();
    expect(() => encodeVectorSnapshot(8, [{ id: 'a', vector: new Float32Array(8) }])).toThrow(TypeError);
  });

  it('reads snapshots of the first format, in one buffer or in parts', () => {
    const input = records(CHUNK_ROWS + 5, 8);
    const v1 = encodeV1(8, input);
    expectSame(decodeVectorSnapshot(v1, 8), input, 8);
    expectSame(decodeVectorSnapshot(cut(v1, [10, 5000, 40_000]), 8), input, 8);
  });

  it('refuses another dimension, another version and damaged bytes', () => {
    const input = records(20, 8);
    const bytes = encodeVectorSnapshot(8, input);
    expect(decodeVectorSnapshot(bytes, 16)).toBeUndefined();
    expect(decodeVectorSnapshot(bytes.subarray(0, bytes.length - 1), 8)).toBeUndefined();
    expect(decodeVectorSnapshot(bytes.subarray(1), 8)).toBeUndefined();
    expect(decodeVectorSnapshot(new Uint8Array(0), 8)).toBeUndefined();
    expect(decodeVectorSnapshot(new Uint8Array(23), 8)).toBeUndefined();
    const version = bytes.slice();
    new DataView(version.buffer).setUint32(version.length - 8, 4, true);
    expect(decodeVectorSnapshot(version, 8)).toBeUndefined();
    // Version 2 bytes taken for version 3 (which holds no metadata) do not add up.
    new DataView(version.buffer).setUint32(version.length - 8, 3, true);
    expect(decodeVectorSnapshot(version, 8)).toBeUndefined();
    // Offsets that run backwards, and ids that are not the count's.
    const offsets = bytes.slice();
    new DataView(offsets.buffer).setUint32(20 * 8 * 4 + 4, 1_000_000, true);
    expect(decodeVectorSnapshot(offsets, 8)).toBeUndefined();
    const v1 = encodeV1(8, input);
    new DataView(v1.buffer).setUint32(12, 21, true);
    expect(decodeVectorSnapshot(v1, 8)).toBeUndefined();
    expect(joinedBytes(cut(bytes, [3, 99]))).toEqual(bytes);
  });
});
