/** Percentile of already-collected samples (nearest-rank). */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Time `fn` once in milliseconds. */
export async function time(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Run `fn` `rounds` times and keep the fastest, which is the least disturbed by a noisy machine. */
export async function fastest(rounds: number, fn: () => unknown): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) best = Math.min(best, await time(fn));
  return best;
}

export function fmt(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(digits);
}

/** Ask V8 to collect garbage when node runs with --expose-gc. */
export function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
