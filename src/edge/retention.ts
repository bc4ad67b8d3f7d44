import { redactText } from '../core/index.ts';
import type { SqliteStore } from './sqliteStore.ts';

/** Options of {@link startRetention}. */
export interface RetentionOptions {
  /** Journals of runs that finished more than this many days ago are deleted. */
  days: number;
  log: (line: string) => void;
  /** Runs deleted per pass at most, so one pass never holds the database long. Default 200. */
  batch?: number;
  /** Time between passes, in milliseconds. Default one hour. */
  intervalMs?: number;
  /** Time before the next pass when one pass left runs behind, in milliseconds. Default 1 s. */
  catchUpMs?: number;
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** What one pass of retention did. */
export interface RetentionPass {
  pruned: number;
  /** Older finished runs remain: another pass follows soon. */
  more: boolean;
}

const DAY_MS = 86_400_000;

/**
 * One pass: delete the journals of at most `batch` runs that finished more than `days` days
 * ago (never a running or paused run). Each leaves a signed `pruned` record in the store's log
 * of heads (see `SqliteStore.pruneFinishedRuns`).
 */
export function pruneOnce(store: SqliteStore, options: Pick<RetentionOptions, 'days' | 'batch' | 'now'>): RetentionPass {
  const cutoff = (options.now ?? Date.now)() - options.days * DAY_MS;
  const { pruned, more } = store.pruneFinishedRuns(cutoff, options.batch ?? 200);
  return { pruned: pruned.length, more };
}

/**
 * Enforce `audit.retention_days` on a Node host: a pass at start, then one every `intervalMs`
 * (sooner while passes leave old runs behind). The timer never keeps the process alive; a pass
 * that fails is logged and the next one tries again.
 */
export function startRetention(store: SqliteStore, options: RetentionOptions): { stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const pass = () => {
    let next = options.intervalMs ?? 3_600_000;
    try {
      const { pruned, more } = pruneOnce(store, options);
      if (pruned) options.log(`retention: deleted the journals of ${pruned} run(s) finished more than ${options.days} day(s) ago; their heads stay in the log`);
      if (more) next = options.catchUpMs ?? 1000;
    } catch (error) {
      options.log(`retention pass failed: ${redactText(error instanceof Error ? error.message : String(error))}`);
    }
    if (stopped) return;
    timer = setTimeout(pass, next);
    timer.unref();
  };
  pass();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
