import type { HeadSignature } from './headSignature.ts';
import { EMPTY_LOG_HEAD, logEntryHash, type HeadLog, type HeadLogEntry, type LogHead } from './headLog.ts';
import type { JournalHead } from './journal.ts';
import type { RunStatus } from '../schema/journalEvent.ts';

/** A run as a store holds it, as far as the log of heads is concerned. */
export interface StoredRunHead {
  runId: string;
  profile: string;
  head: JournalHead;
  /** The run's status as listed; a run at rest must stand exactly at its last entry. */
  status?: RunStatus;
  /**
   * The hash of the run's journal event at `seq`, when the verifier has the journal: a running
   * run must still pass through its last entry. Without it only the head's position is checked.
   */
  hashAt?: (seq: number) => string | undefined;
}

/**
 * The state of a log's signature: `signed` (a valid signature covers every checkpoint),
 * `unsigned` (no signature yet, or a checkpoint after the last one), `bad` (a signature that is
 * not the key's, or a signed head the entries do not fold to: the log was rewritten) or
 * `unchecked` (no key to check it with).
 */
export type LogSignatureState = 'signed' | 'unsigned' | 'bad' | 'unchecked';

/** A run the log disagrees with the store about. */
export interface HeadLogFinding {
  runId: string;
  /** The run's profile, as the log or the store records it. */
  profile: string;
  /** `missing`: named by the log, gone from the store; `head_differs`: the store's head is not the one the log recorded last (rolled back or rewritten); `not_in_log`: a run the log never saw (rows written around the store). */
  kind: 'missing' | 'head_differs' | 'not_in_log';
  /** Whether the log's entry for the run is covered by a valid signature. */
  signed: boolean;
  reason: string;
}

/** What {@link auditHeadLog} found. */
export interface HeadLogAudit {
  ok: boolean;
  /** Entries in the log, and how many of them the signature covers. */
  size: number;
  signedSize: number;
  signature: LogSignatureState;
  /** What is wrong with the log itself: a broken fold, a bad or missing signature. */
  problem?: string;
  /** Runs entered when the log started: written before the store kept a log, covered from that head on. */
  predating: number;
  /**
   * Runs retention deleted on purpose: the log's last entry for each is a `pruned` record at
   * the final head it had logged, and the store holds no such run. Their heads (seq and hash)
   * stay in the log, so a copy of the journal exported before can still be checked against it.
   */
  pruned: PrunedRun[];
  findings: HeadLogFinding[];
}

/** A run whose journal retention deleted, as the log of heads remembers it. */
export interface PrunedRun {
  runId: string;
  profile: string;
  /** The run's final head when it was pruned. */
  seq: number;
  hash: string;
  /** Whether the `pruned` record is covered by a valid signature. */
  signed: boolean;
}

/** Checks a log head's signature: a host's signer port, or a public key through `cugar/signing`. */
export type LogSignatureCheck = (head: LogHead, signature: HeadSignature) => boolean;

/** How far the entries fold correctly, and the problem where they stop. */
function foldEntries(entries: readonly HeadLogEntry[]): { valid: number; problem?: string } {
  let prev = EMPTY_LOG_HEAD.hash;
  for (const [i, entry] of entries.entries()) {
    if (entry.index !== i) return { valid: i, problem: `the log is broken at entry ${i}: it holds entry ${entry.index} there` };
    if (logEntryHash(prev, entry) !== entry.logHash)
      return { valid: i, problem: `the log is broken at entry ${i}: its hash does not fold from the entries before` };
    prev = entry.logHash;
  }
  return { valid: entries.length };
}

/** The state of the signature over `valid` entries, and how many it covers. */
function checkSignature(log: HeadLog, valid: number, check: LogSignatureCheck | undefined): { state: LogSignatureState; signedSize: number; problem?: string } {
  const signed = log.signed;
  if (!signed) return { state: check ? 'unsigned' : 'unchecked', signedSize: 0 };
  const folded = signed.size === 0 ? EMPTY_LOG_HEAD.hash : log.entries[signed.size - 1]?.logHash;
  if (signed.size > valid || folded !== signed.hash)
    return { state: 'bad', signedSize: 0, problem: `the log's entries do not fold to its signed head (${signed.size} entries): the log was rewritten` };
  if (!check) return { state: 'unchecked', signedSize: signed.size };
  if (!check({ size: signed.size, hash: signed.hash }, { keyId: signed.keyId, sig: signed.sig }))
    return { state: 'bad', signedSize: 0, problem: "the log's head is not signed by this key" };
  return { state: 'signed', signedSize: signed.size };
}

/**
 * Whether the log still extends a head a verifier saw before (its size and hash): a store is
 * append-only, so an earlier head stays a prefix of every later log. What one store cannot
 * show about itself — a whole older copy of it put back, signature and all — shows here.
 */
function extends_(log: HeadLog, valid: number, known: LogHead): string | undefined {
  const folded = known.size === 0 ? EMPTY_LOG_HEAD.hash : log.entries[known.size - 1]?.logHash;
  if (known.size <= valid && folded === known.hash) return undefined;
  return `the log does not extend the head seen before (${known.size} entries): the store was rolled back or rewritten`;
}

/**
 * How `run` disagrees with its last entry, if it does. Entries are written when a run starts and
 * whenever it comes to rest, so a run at rest stands exactly at its last entry, a finished run
 * never moves again, and a running run is at or after its last entry, its journal passing
 * through it.
 */
function headDiffers(entry: HeadLogEntry, run: StoredRunHead): string | undefined {
  const { seq, hash } = run.head;
  if (seq < entry.seq) return `the run was rolled back to seq ${seq}`;
  if (seq === entry.seq) return hash === entry.hash ? undefined : `the run was rewritten (its head at seq ${seq} is another)`;
  if (entry.final) return `the run moved on after it finished (the store's head is seq ${seq})`;
  if (run.status !== undefined && run.status !== 'running') return `the run is ${run.status} at seq ${seq}, a head the log never recorded`;
  const passed = run.hashAt?.(entry.seq);
  if (passed !== undefined && passed !== entry.hash) return `the run's journal no longer passes through that head: it was rewritten`;
  return undefined;
}

/**
 * Check a store's log of heads against the runs it holds: the log's fold, its signature (with
 * `check`, else the signature is `unchecked`), and for every run whether the store still holds
 * it where the log last saw it (see {@link headDiffers}). Finds runs deleted (`missing`), rolled
 * back or rewritten (`head_differs`) and runs written around the store (`not_in_log`); with
 * `known`, a log head seen before, also a log that no longer extends it. A store whose log has
 * not started (no write since it began keeping one) has no findings: all its runs predate it.
 */
export function auditHeadLog(log: HeadLog, runs: readonly StoredRunHead[], check?: LogSignatureCheck, known?: LogHead): HeadLogAudit {
  const { valid, problem: foldProblem } = foldEntries(log.entries);
  const signature = checkSignature(log, valid, check);
  let state = signature.state;
  let problem = foldProblem ?? signature.problem ?? (known ? extends_(log, valid, known) : undefined);
  const entries = log.entries.slice(0, valid);
  // With a key, every checkpoint must be covered: a run at rest is signed with the log's head in the same write.
  // (Entries that predate the log were entered with no write to sign them.)
  const lastRest = entries.findLastIndex((entry) => entry.rest === true && !entry.predates);
  if (check && state !== 'bad' && lastRest >= signature.signedSize) {
    state = 'unsigned';
    problem ??= `the log is not signed up to its last checkpoint (entry ${lastRest}; signed: ${signature.signedSize})`;
  }
  const latest = new Map<string, HeadLogEntry>();
  const before = new Map<string, HeadLogEntry>();
  for (const entry of entries) {
    const last = latest.get(entry.runId);
    if (last) before.set(entry.runId, last);
    latest.set(entry.runId, entry);
  }
  const stored = new Map(runs.map((run) => [run.runId, run]));
  const findings: HeadLogFinding[] = [];
  const pruned: PrunedRun[] = [];
  for (const [runId, entry] of latest) {
    const signed = state === 'signed' && entry.index < signature.signedSize;
    const named = `the ${signed ? 'signed ' : ''}log of heads names this run at seq ${entry.seq}`;
    const run = stored.get(runId);
    if (entry.pruned) {
      const problem = prunedProblem(entry, before.get(runId), run !== undefined);
      if (problem) findings.push({ runId, profile: entry.profile, kind: run ? 'head_differs' : 'missing', signed, reason: `${named}, pruned, but ${problem}` });
      else pruned.push({ runId, profile: entry.profile, seq: entry.seq, hash: entry.hash, signed });
      continue;
    }
    if (!run) {
      findings.push({ runId, profile: entry.profile, kind: 'missing', signed, reason: `${named}, but the store has no such run: it was deleted` });
      continue;
    }
    const differs = headDiffers(entry, run);
    if (differs) findings.push({ runId, profile: run.profile, kind: 'head_differs', signed, reason: `${named}, but ${differs}` });
  }
  // Before its first entry the log does not exist yet: every run then predates it.
  if (entries.length > 0) {
    for (const run of runs) {
      if (!latest.has(run.runId))
        findings.push({
          runId: run.runId,
          profile: run.profile,
          kind: 'not_in_log',
          signed: false,
          reason: 'the run is not in the log of heads: its rows were written around the store',
        });
    }
  }
  const predating = entries.length === 0 ? runs.length : new Set(entries.filter((e) => e.predates).map((e) => e.runId)).size;
  return {
    ok: !problem && findings.length === 0 && state !== 'bad',
    size: log.entries.length,
    signedSize: signature.signedSize,
    signature: state,
    ...(problem ? { problem } : {}),
    predating,
    pruned,
    findings,
  };
}

/**
 * What is wrong with a `pruned` record, if anything: only a finished run is pruned, at the
 * final head the log recorded for it, and once pruned it is gone from the store.
 */
function prunedProblem(entry: HeadLogEntry, last: HeadLogEntry | undefined, stillStored: boolean): string | undefined {
  if (stillStored) return 'the store still holds the run';
  if (!last?.final) return 'the log never recorded the run as finished';
  if (last.seq !== entry.seq || last.hash !== entry.hash) return `the run finished at seq ${last.seq}, another head than the one pruned`;
  return undefined;
}
