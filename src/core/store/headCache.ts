import { ConflictError } from '../errors.ts';
import type { JournalHead } from '../journal/journal.ts';
import { checkBatch, type AppendBatch } from './store.ts';

function sameHead(a: JournalHead | undefined, b: JournalHead | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.seq === b.seq && a.hash === b.hash);
}

/**
 * The journal heads one connection knows, so an append is checked without reading storage.
 *
 * A head is *staged* when a batch is written inside the transaction in progress and becomes
 * *committed* with it ({@link commit}); a failed transaction forgets everything ({@link clear}).
 * Another process or tab may move a run on behind this connection's back, so a cached head can
 * be stale: when a batch does not fit a committed head, the head storage holds decides (the
 * stale-head fallback). A staged head is never second-guessed: storage may not show the open
 * transaction's writes yet, and they stand. A run this connection never saw is read from storage. Storage's
 * own uniqueness on `(runId, seq)` remains the last line: a stale cache can never fork a journal.
 */
export class HeadCache {
  readonly #committed = new Map<string, JournalHead>();
  readonly #staged = new Map<string, JournalHead>();

  /** The head this connection last saw for `runId`: staged in the open transaction, else committed; `undefined` when unknown. */
  get(runId: string): JournalHead | undefined {
    return this.#staged.get(runId) ?? this.#committed.get(runId);
  }

  /**
   * Check `batch` as {@link checkBatch} does, against the cached head, falling back to
   * `readHead` (the head in storage, read inside the same transaction) when the run is unknown
   * or its committed head is stale. Throws what `checkBatch` throws.
   */
  checkSync(batch: AppendBatch, readHead: (runId: string) => JournalHead | undefined): void {
    const staged = this.#staged.get(batch.runId);
    if (staged) return checkBatch(batch, staged);
    const cached = this.#committed.get(batch.runId);
    if (cached === undefined) return checkBatch(batch, readHead(batch.runId));
    try {
      checkBatch(batch, cached);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const stored = readHead(batch.runId);
      if (sameHead(stored, cached)) throw error;
      checkBatch(batch, stored);
    }
  }

  /** {@link checkSync} for storage read asynchronously (IndexedDB). */
  async check(batch: AppendBatch, readHead: (runId: string) => Promise<JournalHead | undefined>): Promise<void> {
    const staged = this.#staged.get(batch.runId);
    if (staged) return checkBatch(batch, staged);
    const cached = this.#committed.get(batch.runId);
    if (cached === undefined) return checkBatch(batch, await readHead(batch.runId));
    try {
      checkBatch(batch, cached);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const stored = await readHead(batch.runId);
      if (sameHead(stored, cached)) throw error;
      checkBatch(batch, stored);
    }
  }

  /** Record the head `batch` leaves its run at, written in the open transaction. */
  stage(batch: AppendBatch): void {
    const last = batch.events.at(-1);
    if (last) this.#staged.set(batch.runId, { seq: last.seq, hash: last.hash });
  }

  /** The open transaction committed: its staged heads are now the committed ones. */
  commit(): void {
    for (const [runId, head] of this.#staged) this.#committed.set(runId, head);
    this.#staged.clear();
  }

  /**
   * Storage refused a batch of `runId` the cache let through (another writer got there first):
   * read the run's head from storage next time. A head staged by an earlier batch of the open
   * transaction stays, since that write still stands.
   */
  forget(runId: string): void {
    this.#committed.delete(runId);
  }

  /** The transaction failed as a whole, or the connection was reset: know nothing. */
  clear(): void {
    this.#committed.clear();
    this.#staged.clear();
  }
}
