import type { JournalEvent, Store } from '../../src/core/index.ts';
import { Crash, CrashingStore } from './harness.ts';

/**
 * A store that dies once, before writing the first batch `when` picks: the batch is not written
 * and the caller gets {@link Crash}, as if the process had died just before the write.
 */
export class CrashOnce extends CrashingStore {
  #armed = true;
  constructor(
    inner: Store,
    private readonly when: (events: readonly JournalEvent[]) => boolean,
  ) {
    super(inner, new Set());
  }

  override async append(batch: Parameters<Store['append']>[0]): Promise<void> {
    if (this.#armed && this.when(batch.events)) {
      this.#armed = false;
      throw new Crash();
    }
    return this.inner.append(batch);
  }
}
