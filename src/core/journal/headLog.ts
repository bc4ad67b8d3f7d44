import * as z from 'zod';
import { canonicalJson } from './canonicalJson.ts';
import { GENESIS_HASH } from './journal.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

// A store's log of heads, in the spirit of Certificate Transparency's signed tree heads.
//
// Each run's chain proves its own journal was not changed after its head was written, and the
// head's signature proves the head is the host's; neither says anything about a run that is
// gone, a run put back to an earlier (signed) head, or a run whose rows were written around the
// store. The log does: an entry (run, profile, seq and hash of the batch's last event) is
// written in the same transaction as the append that starts a run and as every append that
// brings a run to rest (paused or finished), each entry folded into a running SHA-256 over the
// one before; in that same transaction the log's head (size and folded hash) is signed with the
// host's key whenever a run comes to rest, when the run's own head is signed too.
//
// Why entries at a run's start and at rest only: the appends in between are most of a store's
// writes (two or three per step), and an entry costs a row and a page written with every
// commit; a run at rest is pinned by its entry exactly, a running run from below (its head is at
// or after its last entry, and its journal passes through it), which is what the run's own head
// signature covers too. Why a hash-chained log rather than a Merkle tree: a verifier reads the
// whole log anyway, as it reads every journal, so inclusion proofs would buy nothing; rather than
// a signed manifest of run → head: its digest would be recomputed over every run at each
// checkpoint, or kept as an additive multiset hash, which is weak at 256 bits. Why sign at rest
// only: an Ed25519 signature (about 0.5 ms in pure TypeScript) costs several appends, and one
// per run at rest covers every entry before it. Entries after the last signature are the log's
// unsigned tail. Measured on SQLite (docs/architecture.md): an entry on every append cost 25 µs
// of CPU per append (56 → 84 µs); this way a running append costs what it did, and a run coming
// to rest about 0.7 ms more (its signature).

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256');

/** One entry of a store's log of heads: the head an append that started a run, or brought it to rest, left it at. */
export const HeadLogEntrySchema = z.object({
  /** Position in the log, from 0. */
  index: z.number().int().min(0),
  runId: z.string().min(1),
  profile: z.string(),
  seq: z.number().int().min(0),
  hash: Hex64,
  /** The append left the run at rest (paused or finished): a checkpoint, signed with the log's head. */
  rest: z.literal(true).optional(),
  /** The append finished the run (completed, failed or cancelled): it can never move again. */
  final: z.literal(true).optional(),
  /** Entered when the log started: the run was written before the store kept a log, and its history before this head is not covered. */
  predates: z.literal(true).optional(),
  /**
   * A `run_pruned` record: retention deleted the finished run's journal, which stood at this
   * head (its final entry's seq and hash, repeated). The run is gone on purpose, not missing.
   */
  pruned: z.literal(true).optional(),
  /** The fold of every entry up to this one: SHA-256 of the previous `logHash` and this entry. */
  logHash: Hex64,
});
export type HeadLogEntry = z.infer<typeof HeadLogEntrySchema>;

/** A log's head: how many entries it has and the fold of them all. */
export const LogHeadSchema = z.object({ size: z.number().int().min(0), hash: Hex64 });
export type LogHead = z.infer<typeof LogHeadSchema>;

/** A log head with the host's signature of it. */
export const SignedLogHeadSchema = LogHeadSchema.extend({ keyId: z.string(), sig: z.string() });
export type SignedLogHead = z.infer<typeof SignedLogHeadSchema>;

/** A store's whole log of heads: its entries in order and the latest signed head. */
export const HeadLogSchema = z.object({ entries: z.array(HeadLogEntrySchema), signed: SignedLogHeadSchema.optional() });
export type HeadLog = z.infer<typeof HeadLogSchema>;

/** The head of a log with no entries. */
export const EMPTY_LOG_HEAD: LogHead = { size: 0, hash: GENESIS_HASH };

/** What a new entry records, before it has a position. */
export type LogEntryFields = Omit<HeadLogEntry, 'index' | 'logHash'>;

const encoder = new TextEncoder();

/**
 * The fold of `entry` onto `prev` (the log hash before it): SHA-256 of a JSON array of strings
 * and integers, whose serialization every engine agrees on byte for byte (it runs on every
 * append, so it skips the canonical-JSON walk an object would need).
 */
export function logEntryHash(prev: string, entry: Omit<HeadLogEntry, 'logHash'>): string {
  const flags = (entry.rest ? 1 : 0) | (entry.predates ? 2 : 0) | (entry.final ? 4 : 0) | (entry.pruned ? 8 : 0);
  return bytesToHex(sha256(encoder.encode(JSON.stringify(['cugar-log-1', prev, entry.index, entry.runId, entry.profile, entry.seq, entry.hash, flags]))));
}

/** The entry that follows `tail` with `fields`; the log's new head is `{ size: entry.index + 1, hash: entry.logHash }`. */
export function nextLogEntry(tail: LogHead, fields: LogEntryFields): HeadLogEntry {
  const entry: Omit<HeadLogEntry, 'logHash'> = {
    index: tail.size,
    runId: fields.runId,
    profile: fields.profile,
    seq: fields.seq,
    hash: fields.hash,
    ...(fields.rest ? { rest: true as const } : {}),
    ...(fields.final ? { final: true as const } : {}),
    ...(fields.predates ? { predates: true as const } : {}),
    ...(fields.pruned ? { pruned: true as const } : {}),
  };
  return { ...entry, logHash: logEntryHash(tail.hash, entry) };
}

/** The head of a log whose last entry is `entry` (the empty head without one). */
export function logHeadAfter(entry: HeadLogEntry | undefined): LogHead {
  return entry ? { size: entry.index + 1, hash: entry.logHash } : EMPTY_LOG_HEAD;
}

/** The text a log head's signature covers: its size and hash, canonical, under their own label (never a run head's). */
export function logHeadMessage(head: LogHead): string {
  return canonicalJson({ v: 'cugar-log-head-1', size: head.size, hash: head.hash });
}
