import { SystemError } from '../errors.ts';
import { EMPTY_LOG_HEAD, nextLogEntry, type HeadLogEntry, type LogHead, type SignedLogHead } from '../journal/headLog.ts';
import type { StoredRunHead } from '../journal/headLogAudit.ts';
import type { HeadSigner } from '../journal/headSignature.ts';
import type { JournalHead } from '../journal/journal.ts';
import type { AppendBatch, RunSummary } from './store.ts';

/** A store's options for its log of heads (see `journal/headLog.ts`). */
export interface HeadLogOptions {
  /** The host's key: the log's head is signed with it at every checkpoint. Without one the log is kept, unsigned. */
  signer?: HeadSigner;
}

/** Whether an append leaves its run at rest (paused or finished): a checkpoint, where the log's head is signed. */
export function isCheckpoint(batch: AppendBatch): boolean {
  return batch.run.status !== 'running';
}

/**
 * The entries one transaction adds to a store's log of heads, from the tail the transaction
 * read: one for each append that starts a run or brings it to rest. {@link next} computes a batch's entry without taking it, so an adapter can write it and
 * still roll the batch back; {@link take} accepts it. {@link seal} signs the new head when the
 * transaction holds a checkpoint. Every adapter writes its log through this.
 *
 * @example
 * const log = new HeadLogWriter(tailReadInTheTransaction, signer);
 * const entry = log.next(batch); // when defined, write it with the batch, then:
 * log.take(entry);
 * const signed = log.seal(); // write it too, when defined
 */
export class HeadLogWriter {
  #tail: LogHead;
  #checkpoint = false;
  readonly #signer: HeadSigner | undefined;
  /** The entries taken so far, in order. */
  readonly entries: HeadLogEntry[] = [];

  constructor(tail: LogHead = EMPTY_LOG_HEAD, signer?: HeadSigner) {
    this.#tail = tail;
    this.#signer = signer;
  }

  /**
   * Start again from `tail`, before any entry is taken: an adapter that trusted a tail it
   * remembered learns (its first insert collided) that another connection wrote on.
   */
  rebase(tail: LogHead): void {
    if (this.entries.length > 0) throw new SystemError('a log of heads can only be rebased before its first entry', { code: 'log_rebase' });
    this.#tail = tail;
  }

  /** The log's head after the entries taken. */
  get tail(): LogHead {
    return this.#tail;
  }

  /**
   * The log's first write on a store that holds runs already: each is entered at the head it has
   * now, marked as predating the log, in run id order.
   */
  predating(runs: Iterable<StoredRunHead>): HeadLogEntry[] {
    const sorted = [...runs].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    return sorted.map((run) => {
      const rest = run.status !== undefined && run.status !== 'running';
      const final = rest && run.status !== 'paused';
      const { runId, profile, head } = run;
      const entry = nextLogEntry(this.#tail, {
        runId,
        profile,
        seq: head.seq,
        hash: head.hash,
        ...(rest ? { rest } : {}),
        ...(final ? { final } : {}),
        predates: true,
      });
      this.take(entry, false);
      return entry;
    });
  }

  /** The entry `batch` adds after the entries taken, when it starts its run or brings it to rest; `undefined` for the appends between. */
  next(batch: AppendBatch): HeadLogEntry | undefined {
    return this.entryFor(batch.run, batch.events.at(-1)!, batch.expectedHead === null);
  }

  /** The entry for an append that left `run` at `head` (its last event), when `first` (it started the run) or `run` is at rest. */
  entryFor(run: Pick<RunSummary, 'runId' | 'profile' | 'status'>, head: JournalHead, first: boolean): HeadLogEntry | undefined {
    const rest = run.status !== 'running';
    if (!first && !rest) return undefined;
    const final = rest && run.status !== 'paused';
    return nextLogEntry(this.#tail, {
      runId: run.runId,
      profile: run.profile,
      seq: head.seq,
      hash: head.hash,
      ...(rest ? { rest } : {}),
      ...(final ? { final } : {}),
    });
  }

  /** Accept `entry` (from {@link next}); `checkpoint` when its batch left the run at rest. */
  take(entry: HeadLogEntry, checkpoint = entry.rest === true): void {
    this.entries.push(entry);
    this.#tail = { size: entry.index + 1, hash: entry.logHash };
    this.#checkpoint ||= checkpoint;
  }

  /** {@link next} and {@link take} at once, for adapters with nothing to roll back. */
  add(batch: AppendBatch): HeadLogEntry | undefined {
    const entry = this.next(batch);
    if (entry) this.take(entry);
    return entry;
  }

  /** The signed head to write with this transaction: when it holds a checkpoint and the store has a key. */
  seal(): SignedLogHead | undefined {
    if (!this.#checkpoint || !this.#signer) return undefined;
    return { ...this.#tail, ...this.#signer.signLog(this.#tail) };
  }
}
