import { auditHeadLog, type HeadLogAudit, type LogSignatureCheck, type StoredRunHead } from './headLogAudit.ts';
import type { HeadLog, LogHead } from './headLog.ts';
import type { HeadSignature } from './headSignature.ts';
import type { JournalHead } from './journal.ts';
import type { RunStatus } from '../schema/journalEvent.ts';

/** A run's head as a store lists it for verifiers (`GET /v1/audit/heads`). */
export interface ListedHead extends StoredRunHead {
  status: RunStatus;
  signature?: HeadSignature;
}

/** A store's heads: its log of heads and every run it holds. */
export interface StoreHeads {
  log: HeadLog;
  runs: readonly ListedHead[];
}

/** Checks a run head's signature: a host's signer port, or a public key through `cugar/signing`. */
export type HeadSignatureCheck = (runId: string, head: JournalHead, signature: HeadSignature) => boolean;

/** `signed`: the key's valid signature; `unsigned`: none (fine while a run is running); `bad`: a signature that is not the key's. */
export type HeadSignatureState = 'signed' | 'unsigned' | 'bad';

/** One run of {@link verifyStoreHeads}: its signature and what the log of heads says about it. */
export interface RunHeadVerification {
  runId: string;
  profile: string;
  /** Absent for a run the log names that the store no longer holds. */
  status?: RunStatus;
  signature: HeadSignatureState;
  ok: boolean;
  reason?: string;
}

/** What {@link verifyStoreHeads} found. */
export interface StoreHeadsVerification {
  ok: boolean;
  runs: RunHeadVerification[];
  log: HeadLogAudit;
}

/** The state of one run head's signature. */
export function headSignatureState(run: Pick<ListedHead, 'runId' | 'head' | 'signature'>, check: HeadSignatureCheck): HeadSignatureState {
  if (!run.signature) return 'unsigned';
  return check(run.runId, run.head, run.signature) ? 'signed' : 'bad';
}

/**
 * Verify a store's heads with a key alone: every run head's signature (a run at rest must be
 * signed), the log's fold and signature, and the runs against the log (deleted, rolled back,
 * written around the store). This is what the CLI and the dashboard run with the public key of
 * `GET /v1/keys`; the host's own audit runs the same checks with its signer.
 */
export function verifyStoreHeads(
  heads: StoreHeads,
  checks: { head: HeadSignatureCheck; log: LogSignatureCheck },
  /** A log head this verifier saw before: the log must still extend it. */
  known?: LogHead,
): StoreHeadsVerification {
  const log = auditHeadLog(heads.log, heads.runs, checks.log, known);
  const runs: RunHeadVerification[] = heads.runs.map((run) => {
    const signature = headSignatureState(run, checks.head);
    const atRest = run.status !== 'running';
    const reason =
      signature === 'bad'
        ? "the head's signature is not this key's signature of it"
        : signature === 'unsigned' && atRest
          ? 'the run is at rest but its head is not signed'
          : undefined;
    return { runId: run.runId, profile: run.profile, status: run.status, signature, ok: reason === undefined, ...(reason ? { reason } : {}) };
  });
  for (const finding of log.findings) {
    const run = runs.find((r) => r.runId === finding.runId);
    if (!run) runs.push({ runId: finding.runId, profile: finding.profile, signature: 'unsigned', ok: false, reason: finding.reason });
    else if (run.ok) Object.assign(run, { ok: false, reason: finding.reason });
  }
  return { ok: log.ok && runs.every((run) => run.ok), runs, log };
}
