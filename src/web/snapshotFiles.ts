import { sha256Hex } from '../core/journal/sha256.ts';

/**
 * Large snapshots of a profile's vectors kept as files in the origin private file system (OPFS)
 * instead of as IndexedDB values. Chromium stores a large IndexedDB value as a blob and reads it
 * back through its blob service: a 21 MB snapshot took 350–550 ms to read, the same bytes as a
 * file 100–165 ms (measured in Debian's Chromium on this project's machine, 2026-11-27), and the
 * snapshot is most of what a reload reads before its first query.
 *
 * A file cannot be written in the IndexedDB transaction that checks the profile's generation, so
 * each file carries its stamp: the generation it was made at and the profile's nonce, a random
 * id kept with the generation so that a database deleted and made again (counting from 1 again)
 * never takes an old file for its own. A file is used only while both match what IndexedDB
 * holds; one written while the rows moved on is stale, as an IndexedDB snapshot would be.
 */

/** Snapshots smaller than this stay IndexedDB values (one read with the generation). */
export const FILE_SNAPSHOT_BYTES = 256 * 1024;

const MAGIC = 0x46534331; // "1CSF" little-endian: CUGAr snapshot file
const VERSION = 1;
/** magic, version (u32 each), generation (f64), nonce length (u32), nonce (ASCII, up to 36), padded to 64 so the payload stays aligned. */
const HEADER = 64;
const NONCE_AT = 20;
const MAX_NONCE = HEADER - NONCE_AT;

/** A snapshot read back from its file: the payload and the stamp it was written with. */
export interface SnapshotFile {
  bytes: Uint8Array;
  generation: number;
  nonce: string;
}

/** The origin's private directory for snapshot files, or undefined where there is none (no OPFS, a private window, a test double of IndexedDB). */
async function directory(create: boolean): Promise<FileSystemDirectoryHandle | undefined> {
  const storage = (globalThis as { navigator?: { storage?: { getDirectory?: () => Promise<FileSystemDirectoryHandle> } } }).navigator?.storage;
  if (typeof storage?.getDirectory !== 'function') return undefined;
  try {
    return await (await storage.getDirectory()).getDirectoryHandle('cugar-snapshots', { create });
  } catch {
    return undefined;
  }
}

/** The file name of a snapshot: a hash, so any database, profile and snapshot name makes a valid one. */
export function snapshotFileName(database: string, profile: string, name: string): string {
  return `${sha256Hex(`${database}\u0000${profile}\u0000${name}`)}.snap`;
}

/** Whether this browser can keep snapshot files (asked once per page). */
let usable: Promise<boolean> | undefined;
export function snapshotFilesUsable(): Promise<boolean> {
  usable ??= (async () => {
    const dir = await directory(true);
    const handle = (globalThis as { FileSystemFileHandle?: { prototype: { createWritable?: unknown } } }).FileSystemFileHandle;
    return dir !== undefined && typeof handle?.prototype.createWritable === 'function';
  })();
  return usable;
}

/**
 * Read the snapshot file; undefined when there is none, it is damaged, or (given `expected`) its
 * stamp is not that one, in which case only its header is read.
 */
export async function readSnapshotFile(
  database: string,
  profile: string,
  name: string,
  expected?: { generation: number; nonce: string },
): Promise<SnapshotFile | undefined> {
  const dir = await directory(false);
  if (!dir) return undefined;
  try {
    const file = await (await dir.getFileHandle(snapshotFileName(database, profile, name))).getFile();
    if (file.size < HEADER) return undefined;
    const stamp = stampOf(await file.slice(0, HEADER).arrayBuffer());
    if (!stamp || (expected && (stamp.generation !== expected.generation || stamp.nonce !== expected.nonce))) return undefined;
    return { bytes: new Uint8Array(await file.slice(HEADER).arrayBuffer()), ...stamp };
  } catch {
    return undefined;
  }
}

/** The generation and nonce of a file's header; undefined when it is not one. */
function stampOf(header: ArrayBuffer): { generation: number; nonce: string } | undefined {
  const view = new DataView(header);
  const nonceLength = view.getUint32(16, true);
  if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== VERSION || nonceLength > MAX_NONCE) return undefined;
  const generation = view.getFloat64(8, true);
  if (!Number.isSafeInteger(generation) || generation < 0) return undefined;
  return { generation, nonce: String.fromCharCode(...new Uint8Array(header, NONCE_AT, nonceLength)) };
}

/** Write the snapshot file stamped with `generation` and `nonce`; it replaces the old file only once it is whole. Throws when the file system refuses. */
export async function writeSnapshotFile(
  database: string,
  profile: string,
  name: string,
  stamp: { generation: number; nonce: string },
  bytes: Uint8Array,
): Promise<void> {
  if (stamp.nonce.length > MAX_NONCE || !/^[\x20-\x7e]*$/.test(stamp.nonce)) throw new RangeError('a snapshot nonce is at most 44 printable ASCII characters');
  const dir = await directory(true);
  if (!dir) throw new Error('this browser keeps no snapshot files');
  const header = new Uint8Array(HEADER);
  const view = new DataView(header.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setFloat64(8, stamp.generation, true);
  view.setUint32(16, stamp.nonce.length, true);
  for (let i = 0; i < stamp.nonce.length; i++) header[NONCE_AT + i] = stamp.nonce.charCodeAt(i);
  const writable = await (await dir.getFileHandle(snapshotFileName(database, profile, name), { create: true })).createWritable();
  try {
    await writable.write(header);
    await writable.write(bytes as Uint8Array<ArrayBuffer>);
    await writable.close();
  } catch (error) {
    await writable.abort().catch(() => undefined);
    throw error;
  }
}

/** Remove the snapshot file, if any. */
export async function removeSnapshotFile(database: string, profile: string, name: string): Promise<void> {
  const dir = await directory(false);
  await dir?.removeEntry(snapshotFileName(database, profile, name)).catch(() => undefined);
}
