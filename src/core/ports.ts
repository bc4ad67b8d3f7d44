import { ResourceError } from './errors.ts';
import { BYTE_HEX } from './hex.ts';

export type { Store } from './store/store.ts';
export type { Model, ModelProvider } from './models/model.ts';

/**
 * The ports a host hands the core. Everything non-deterministic — time, ids, randomness,
 * models — enters through one of these, so a run can be recorded and replayed.
 */

/** Wall-clock time in milliseconds since the Unix epoch. */
export interface Clock {
  now(): number;
}

/** Produces unique identifiers. */
export interface Ids {
  /** A new id, optionally prefixed (`run_…`, `trace_…`). */
  next(prefix?: string): string;
}

/** A source of uniform numbers in [0, 1). */
export interface Random {
  next(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * Wait `ms` milliseconds, or until `signal` aborts: then it rejects with the abort's reason
 * (or a `ResourceError` when there is none). The abort listener is removed when the timer
 * fires, so many waits on one long-lived signal leave nothing behind.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = () => (
      clearTimeout(timer),
      reject(signal.reason instanceof Error ? signal.reason : new ResourceError('the wait was cancelled', { code: 'cancelled' }))
    );
    if (signal.aborted) return abort();
    const timer = setTimeout(() => (signal.removeEventListener('abort', abort), resolve()), ms);
    signal.addEventListener('abort', abort, { once: true });
  });
}

/**
 * Cooperative time slices for long work on a shared event loop (a 12 MiB ingest on a server,
 * a big import in a tab): `await yieldNow()` costs nothing until `sliceMs` of work has passed
 * since the last yield, then gives the loop one macrotask turn, so requests and rendering are
 * served between slices. A macrotask (not a microtask) is needed: resolved promises alone
 * never let I/O callbacks run.
 */
export function createYielder(sliceMs = 20): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    since = performance.now();
  };
}

/** A clock that only moves when told to; for tests and replay. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start = 0) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  /** Move forward by `ms` (must be ≥ 0). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('a clock only moves forward');
    this.#now += ms;
  }
}

/** A clock that returns `start`, `start + step`, … on successive calls: time that moves deterministically. */
export function steppingClock(start = 0, step = 1): Clock {
  let now = start - step;
  return { now: () => (now += step) };
}

/** The random part of an id made by {@link createRandomIds}: 80 bits. */
const RANDOM_BYTES = 10;

/**
 * 128-bit ids, hex encoded, that sort by the time they were made: 48 bits of `clock`'s
 * milliseconds, then 80 bits from `crypto.getRandomValues` (the layout of a UUIDv7, without its
 * version bits). Ids made close together sit together in an index, so the journal rows and run
 * rows that concurrent runs write share index pages instead of touching one page each.
 */
export function createRandomIds(clock: Clock = systemClock): Ids {
  // Random bytes for 32 ids at a time: on Node each `getRandomValues` call costs about 2.6 µs
  // whatever its size, against 0.08 µs an id from a pool (each byte is still used once).
  const pool = new Uint8Array(RANDOM_BYTES * 32);
  let used = pool.length;
  return {
    next(prefix) {
      if (used === pool.length) {
        crypto.getRandomValues(pool);
        used = 0;
      }
      const now = clock.now();
      // A clock out of range (before 1970, past the year 10889, not a number) gives the nearest bound.
      const ms = Number.isFinite(now) ? Math.max(0, Math.min(Math.floor(now), 0xffff_ffff_ffff)) : now > 0 ? 0xffff_ffff_ffff : 0;
      let id = ms.toString(16).padStart(12, '0');
      for (const end = used + RANDOM_BYTES; used < end; used++) id += BYTE_HEX[pool[used]!];
      return prefix ? `${prefix}_${id}` : id;
    },
  };
}

/** Deterministic ids `prefix_<seed>_<n>` with a per-prefix counter; for tests and replay. */
export function createSequentialIds(seed = 'seq'): Ids {
  const counters = new Map<string, number>();
  return {
    next(prefix = 'id') {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_${seed}_${n}`;
    },
  };
}

/**
 * A seeded pseudo-random generator (mulberry32): fast, 32-bit state, the same sequence in
 * every JavaScript engine because it uses only `Math.imul` and 32-bit integer operations.
 */
export function createSeededRandom(seed: number): Random {
  let state = seed >>> 0;
  return {
    next() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}
