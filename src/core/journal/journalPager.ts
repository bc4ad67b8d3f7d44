import { SystemError } from '../errors.ts';
import type { JournalEvent, JournalEventType } from '../schema/journalEvent.ts';
import type { Store } from '../store/store.ts';
import type { JournalHead } from './journal.ts';

/** Most events per page: a few hundred kilobytes of a typical journal, read and parsed in a few milliseconds. */
export const JOURNAL_PAGE_SIZE = 512;

/** Events in the first page (a run's first events hold its whole plan); each page after holds twice as many, up to the page size. */
const FIRST_PAGE = 1;

/**
 * One run's journal up to a fixed head, read page by page where the store offers
 * `readJournalPage` (SQLite, in memory), else whole with `readJournal` and handed out in pages.
 * Opened at the head of the run's summary (which the store writes with the events it names),
 * it reads nothing until asked: appends made meanwhile are left out, and a journal that no
 * longer holds that head (a run deleted while read) fails with `journal_changed`.
 *
 * @example
 * const pager = await JournalPager.open(store, runId, summary.head);
 * for await (const page of pager.pages()) send(page);
 */
export class JournalPager {
  readonly #store: Store;
  readonly #runId: string;
  readonly #pageSize: number;
  /** The whole journal, when the store cannot read pages (or no head was given). */
  readonly #whole: readonly JournalEvent[] | undefined;
  #last: Promise<JournalEvent | undefined> | undefined;
  /** The head the journal is read up to; undefined for an empty journal. */
  readonly head: JournalHead | undefined;

  private constructor(store: Store, runId: string, pageSize: number, head: JournalHead | undefined, whole?: readonly JournalEvent[]) {
    this.#store = store;
    this.#runId = runId;
    this.#pageSize = pageSize;
    this.head = head;
    this.#whole = whole;
  }

  /**
   * Open `runId`'s journal at `head`. Without `head`, or on a store that cannot read pages, the
   * journal is read whole, as it stands.
   */
  static async open(store: Store, runId: string, head?: JournalHead, pageSize = JOURNAL_PAGE_SIZE): Promise<JournalPager> {
    if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError('a page holds at least one event');
    if (head && store.readJournalPage) return new JournalPager(store, runId, pageSize, { seq: head.seq, hash: head.hash });
    const whole = await store.readJournal(runId);
    const last = whole[whole.length - 1];
    return new JournalPager(store, runId, pageSize, last && { seq: last.seq, hash: last.hash }, whole);
  }

  #changed(): SystemError {
    return new SystemError(`the journal of run ${this.#runId} changed while it was read`, { code: 'journal_changed' });
  }

  /** The event at the head (read once); undefined for an empty journal. */
  last(): Promise<JournalEvent | undefined> {
    return (this.#last ??= (async () => {
      const head = this.head;
      if (!head) return undefined;
      if (this.#whole) return this.#whole[this.#whole.length - 1];
      const [last] = await this.#store.readJournalPage!(this.#runId, head.seq, 1);
      if (!last || last.seq !== head.seq || last.hash !== head.hash) throw this.#changed();
      return last;
    })());
  }

  /**
   * The events from seq `fromSeq` (default 0) to the head, in order, a page at a time (the first
   * pages small, so the first events leave early).
   */
  async *pages(fromSeq = 0): AsyncGenerator<readonly JournalEvent[]> {
    if (!Number.isInteger(fromSeq) || fromSeq < 0) throw new RangeError('a journal is read from a seq of 0 or more');
    let size = Math.min(FIRST_PAGE, this.#pageSize);
    if (this.#whole) {
      // A journal's seq is its position (checked when it was written), so seq n is element n.
      for (let i = fromSeq; i < this.#whole.length; i += size, size = Math.min(size * 2, this.#pageSize)) yield this.#whole.slice(i, i + size);
      return;
    }
    const head = this.head;
    if (!head) return;
    for (let next = fromSeq; next <= head.seq; size = Math.min(size * 2, this.#pageSize)) {
      const page = await this.#store.readJournalPage!(this.#runId, next, Math.min(size, head.seq + 1 - next));
      const end = page[page.length - 1];
      if (!end || page[0]!.seq !== next || end.seq !== next + page.length - 1) throw this.#changed();
      next += page.length;
      if (next > head.seq && end.hash !== head.hash) throw this.#changed();
      yield page;
    }
  }

  /** The events whose type is one of `types`, in order (a store with `readJournalOfTypes` reads only those). */
  async ofTypes(types: readonly JournalEventType[]): Promise<JournalEvent[]> {
    const wanted = new Set<string>(types);
    if (this.#whole) return this.#whole.filter((event) => wanted.has(event.type));
    if (!this.head) return [];
    if (this.#store.readJournalOfTypes) return this.#store.readJournalOfTypes(this.#runId, types, this.head.seq);
    const found: JournalEvent[] = [];
    for await (const page of this.pages()) for (const event of page) if (wanted.has(event.type)) found.push(event);
    return found;
  }
}
