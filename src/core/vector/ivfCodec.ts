import { ValidationError } from '../errors.ts';
import type { IvfQuantiser } from './ivfVectorIndex.ts';

/** First bytes of a serialised index: "CIVF". */
const MAGIC = 0x46564943;
/** Version of the layout below; a reader refuses versions it does not know. */
export const IVF_FORMAT_VERSION = 1;
const HEADER_BYTES = 32;

/** What a serialised inverted-file index holds: the quantiser and each record's list, by id. */
export interface IvfSnapshot {
  dimension: number;
  quantiser: IvfQuantiser;
  ids: readonly string[];
  /** `lists[i]` is the list of `ids[i]`. */
  lists: Int32Array;
}

function invalid(reason: string): ValidationError {
  return new ValidationError(`stored vector index is unreadable: ${reason}`, { code: 'invalid_index' });
}

/**
 * Serialise an index's structure (not its vectors, which are stored as rows already), version 1,
 * little-endian: a 32-byte header (magic, version, dimension, coarse and fine centroid counts,
 * size when trained, entry count, reserved), the coarse centroids, the fine centroids, each
 * coarse centroid's first fine one (plus an end), then per entry its list (u32), the UTF-8
 * length of its id (u16) and the id.
 */
export function encodeIvf(snapshot: IvfSnapshot): Uint8Array {
  const { dimension, quantiser, ids, lists } = snapshot;
  const coarseCount = quantiser.firstChild.length - 1;
  const fineCount = quantiser.fine.length / dimension;
  const encoder = new TextEncoder();
  const encodedIds = ids.map((id) => encoder.encode(id));
  const floats = (coarseCount + fineCount) * dimension;
  const bytes = HEADER_BYTES + floats * 4 + (coarseCount + 1) * 4 + encodedIds.reduce((n, id) => n + 6 + id.length, 0);
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  [MAGIC, IVF_FORMAT_VERSION, dimension, coarseCount, fineCount, quantiser.trainedAt, ids.length, 0].forEach((v, i) => view.setUint32(i * 4, v, true));
  let at = HEADER_BYTES;
  for (const source of [quantiser.coarse, quantiser.fine]) {
    for (let i = 0; i < source.length; i++, at += 4) view.setFloat32(at, source[i]!, true);
  }
  for (let i = 0; i <= coarseCount; i++, at += 4) view.setInt32(at, quantiser.firstChild[i]!, true);
  encodedIds.forEach((id, i) => {
    view.setUint32(at, lists[i]!, true);
    view.setUint16(at + 4, id.length, true);
    out.set(id, at + 6);
    at += 6 + id.length;
  });
  return out;
}

/** Read {@link encodeIvf}'s bytes back; anything malformed is a `ValidationError` (`invalid_index`). */
export function decodeIvf(bytes: Uint8Array): IvfSnapshot {
  if (!(bytes instanceof Uint8Array) || bytes.byteLength < HEADER_BYTES) throw invalid('too short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = Array.from({ length: 8 }, (_, i) => view.getUint32(i * 4, true));
  const [magic, version, dimension, coarseCount, fineCount, trainedAt, entries] = header as [number, number, number, number, number, number, number];
  if (magic !== MAGIC) throw invalid('not an inverted-file index');
  if (version !== IVF_FORMAT_VERSION) throw invalid(`format version ${version} is not supported (this build reads ${IVF_FORMAT_VERSION})`);
  if (dimension < 1 || coarseCount < 1 || fineCount < coarseCount) throw invalid('bad header');
  const fixed = HEADER_BYTES + (coarseCount + fineCount) * dimension * 4 + (coarseCount + 1) * 4;
  if (fixed > bytes.byteLength || entries * 6 > bytes.byteLength - fixed) throw invalid('truncated');
  let at = HEADER_BYTES;
  const readFloats = (count: number) => {
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++, at += 4) {
      out[i] = view.getFloat32(at, true);
      if (!Number.isFinite(out[i]!)) throw invalid('a centroid has a non-finite value');
    }
    return out;
  };
  const coarse = readFloats(coarseCount * dimension);
  const fine = readFloats(fineCount * dimension);
  const firstChild = new Int32Array(coarseCount + 1);
  for (let i = 0; i <= coarseCount; i++, at += 4) firstChild[i] = view.getInt32(at, true);
  for (let i = 0; i < coarseCount; i++) if (firstChild[i]! > firstChild[i + 1]!) throw invalid('bad centroid groups');
  if (firstChild[0] !== 0 || firstChild[coarseCount] !== fineCount) throw invalid('bad centroid groups');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const ids: string[] = [];
  const lists = new Int32Array(entries);
  for (let i = 0; i < entries; i++) {
    if (at + 6 > bytes.byteLength) throw invalid('truncated');
    const list = view.getUint32(at, true);
    const length = view.getUint16(at + 4, true);
    if (list >= fineCount) throw invalid('an entry names a list that does not exist');
    if (at + 6 + length > bytes.byteLength) throw invalid('truncated');
    try {
      ids.push(decoder.decode(bytes.subarray(at + 6, at + 6 + length)));
    } catch {
      throw invalid('an id is not UTF-8');
    }
    lists[i] = list;
    at += 6 + length;
  }
  if (at !== bytes.byteLength) throw invalid('trailing bytes');
  return { dimension, quantiser: { coarse, fine, firstChild, trainedAt }, ids, lists };
}
