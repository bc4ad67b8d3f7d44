import { SystemError } from '../errors.ts';
import type { JournalEvent, JournalEventType } from '../schema/journalEvent.ts';
import type { Store } from '../store/store.ts';
import type { JournalHead } from './journal.ts';

/** Events per page: a few hundred kilobytes of a typical journal, read and parsed in a few milliseconds. */
export const JOURNAL_PAGE_SIZE = 512;

/**
 * One run's journal up to a fixed head, read page by page where the store offers
 * `readJournalPage` (SQLite, in memory), else whole with `readJournal` and handed out in pages.
 * Every view of one request reads the same events: appends made while it is read are left out,
 * and the head it names (`last`) is the head it was opened at.
 *
 * @example
 * const pager = await JournalPager.open(store, runId, summary.head);
 * for await (const page of pager.pages()) send(page);
 */
export class JournalPager {
  readonly #store: Store;
  readonly #runId: string;
  readonly #pageSize: number;
  /** The whole journal, when the store cannot read pages (or its summary disagreed with its events). */
  readonly #whole: readonly JournalEvent[] | undefined;
  /** The first page, read when opened (it holds the first event). */
  readonly #firstPage: readonly JournalEvent[];
  /** The journal's first event; undefined for an empty journal. */
  readonly first: JournalEvent | undefined;
  /** The journal's last event as opened: its head. */
  readonly last: JournalEvent | undefined;

  private constructor(
    store: Store,
    runId: string,
    pageSize: number,
    read: { whole?: readonly JournalEvent[]; firstPage: readonly JournalEvent[]; last?: JournalEvent },
  ) {
    this.#store = store;
    this.#runId = runId;
    this.#pageSize = pageSize;
    this.#whole = read.whole;
    this.#firstPage = read.firstPage;
    this.first = read.firstPage[0];
    this.last = read.last;
  }

  /**
   * Open `runId`'s journal at `head` (the run summary's, which the store writes with the events
   * it names). Without `head`, a store that cannot read pages, or a head the store does not hold
   * as given, the journal is read whole, as it stands.
   */
  static async open(store: Store, runId: string, head?: JournalHead, pageSize = JOURNAL_PAGE_SIZE): Promise<JournalPager> {
    if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError('a page holds at least one event');
    if (head && store.readJournalPage) {
      const [last] = await store.readJournalPage(runId, head.seq, 1);
      if (last && last.hash === head.hash) {
        const firstPage = await store.readJournalPage(runId, 0, Math.min(pageSize, head.seq + 1));
        return new JournalPager(store, runId, pageSize, { firstPage, last });
      }
    }
    const whole = await store.readJournal(runId);
    const last = whole[whole.length - 1];
    return new JournalPager(store, runId, pageSize, { whole, firstPage: whole.slice(0, pageSize), ...(last ? { last } : {}) });
  }

  /** The events, in order, a page at a time. A journal that lost events while read (a run deleted meanwhile) fails with `journal_changed`. */
  async *pages(): AsyncGenerator<readonly JournalEvent[]> {
    if (this.#whole) {
      for (let i = 0; i < this.#whole.length; i += this.#pageSize) yield i === 0 ? this.#firstPage : this.#whole.slice(i, i + this.#pageSize);
      return;
    }
    const last = this.last;
    if (!last) return;
    let page = this.#firstPage;
    let next = 0;
    for (;;) {
      if (page.length === 0 || page[0]!.seq !== next || page[page.length - 1]!.seq !== next + page.length - 1)
        throw new SystemError(`the journal of run ${this.#runId} changed while it was read`, { code: 'journal_changed' });
      yield page;
      next += page.length;
      if (next > last.seq) return;
      page = await this.#store.readJournalPage!(this.#runId, next, Math.min(this.#pageSize, last.seq + 1 - next));
    }
  }

  /** The events whose type is one of `types`, in order (a store with `readJournalOfTypes` reads only those). */
  async ofTypes(types: readonly JournalEventType[]): Promise<JournalEvent[]> {
    const wanted = new Set<string>(types);
    if (this.#whole) return this.#whole.filter((event) => wanted.has(event.type));
    if (!this.last) return [];
    if (this.#store.readJournalOfTypes) return this.#store.readJournalOfTypes(this.#runId, types, this.last.seq);
    const found: JournalEvent[] = [];
    for await (const page of this.pages()) for (const event of page) if (wanted.has(event.type)) found.push(event);
    return found;
  }
}
