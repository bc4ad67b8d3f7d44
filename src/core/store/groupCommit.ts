/** The items of one transaction a {@link GroupCommit} writer refused, by position, each with its reason; the others are durable. */
export type Refusals = ReadonlyMap<number, unknown>;

/** Options of a {@link GroupCommit}. */
export interface GroupCommitOptions<T> {
  /**
   * Write `items` in one transaction. Return the positions of the items refused on their own (a
   * stale head, a broken chain) with their errors; every other item must be durable once this returns or its
   * promise resolves. Throw, or reject, when the transaction failed as a whole: nothing was written.
   */
  commit(items: readonly T[]): Refusals | Promise<Refusals>;
  /** The error each item of a transaction that failed as a whole is rejected with. Default: the error as thrown. */
  failure?(error: unknown): unknown;
  /**
   * Whether a transaction that failed as a whole is tried again one item at a time, so only the
   * item at fault fails (a store without per-item savepoints needs this). Default: never.
   */
  retryAlone?(error: unknown): boolean;
  /** Coalesce the items enqueued in one turn into one transaction. When false, each item commits alone. Default true. */
  coalesce?: boolean;
  /**
   * Call `flush` once the current turn has had its chance to enqueue more: `setImmediate` on
   * Node, a zero-delay timer in browsers. Default `setTimeout(flush, 0)`.
   */
  schedule?(flush: () => void): void;
}

interface Entry<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const scheduleTimer = (flush: () => void): void => void setTimeout(flush, 0);

/**
 * A group-commit queue: appends made in the same turn share one transaction (one fsync), each
 * resolving only once that transaction committed. Transactions never overlap: what is enqueued
 * while one is in flight forms the next group, so a writer's view of the heads it wrote is never
 * ahead of storage. A synchronous `commit` (SQLite) settles synchronously; an asynchronous one
 * (IndexedDB) is awaited before the next group starts.
 *
 * @example
 * const commits = new GroupCommit<AppendBatch>({ commit: (batches) => writeAll(batches) });
 * await commits.enqueue(batch); // durable once this resolves
 */
export class GroupCommit<T> {
  readonly #options: GroupCommitOptions<T>;
  readonly #coalesce: boolean;
  #queue: Entry<T>[] = [];
  #scheduled = false;
  #inFlight: Promise<void> | undefined;

  constructor(options: GroupCommitOptions<T>) {
    this.#options = options;
    this.#coalesce = options.coalesce ?? true;
  }

  /** Items waiting for their transaction. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Queue `item` for the next transaction; resolves once it is durable, rejects with the reason it was refused. */
  enqueue(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#coalesce) {
        void this.flush();
      } else if (!this.#scheduled) {
        this.#scheduled = true;
        (this.#options.schedule ?? scheduleTimer)(() => void this.flush());
      }
    });
  }

  /** Commit what is queued now (after the transaction in flight, if any); resolves when it settled. Never rejects. */
  flush(): Promise<void> {
    if (this.#inFlight) return this.#inFlight.then(() => this.flush());
    this.#scheduled = false;
    const entries = this.#coalesce ? this.#queue.splice(0) : this.#queue.splice(0, 1);
    if (entries.length === 0) return Promise.resolve();
    const settled = this.#commit(entries);
    if (!settled) return this.#queue.length && !this.#coalesce ? this.flush() : Promise.resolve();
    this.#inFlight = settled.finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight.then(() => (this.#queue.length && !this.#coalesce ? this.flush() : undefined));
  }

  /** Commit `entries`; returns a promise only when the writer is asynchronous. */
  #commit(entries: readonly Entry<T>[]): Promise<void> | undefined {
    let outcome: Refusals | Promise<Refusals>;
    try {
      outcome = this.#options.commit(entries.map((entry) => entry.item));
    } catch (error) {
      return this.#failed(entries, error);
    }
    if (!(outcome instanceof Promise)) {
      settle(entries, outcome);
      return undefined;
    }
    return outcome.then(
      (refused) => settle(entries, refused),
      (error: unknown) => this.#failed(entries, error),
    );
  }

  #failed(entries: readonly Entry<T>[], error: unknown): Promise<void> | undefined {
    if (entries.length > 1 && this.#options.retryAlone?.(error)) {
      const alone = entries.map((entry) => () => this.#commit([entry]));
      // One at a time, in order: a later item may continue a run an earlier one wrote.
      let chain: Promise<void> | undefined;
      for (const next of alone) chain = chain ? chain.then(next) : next();
      return chain;
    }
    const reason = this.#options.failure ? this.#options.failure(error) : error;
    for (const entry of entries) entry.reject(reason);
    return undefined;
  }
}

function settle<T>(entries: readonly Entry<T>[], refused: Refusals): void {
  entries.forEach((entry, i) => (refused.has(i) ? entry.reject(refused.get(i)) : entry.resolve()));
}
