import type { RunSummary } from '../core/index.ts';

/** One day of one profile's runs (or of every profile's, with `profile` absent). */
export interface DayStats {
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  profile?: string;
  runs: number;
  failed: number;
  /** Failed runs over finished ones (0 when none finished). */
  errorRate: number;
  /** Latency (last event − first) of the finished runs: median and 95th percentile, ms. */
  p50Ms: number;
  p95Ms: number;
  cost: number;
  tokens: number;
}

const DAY_MS = 86_400_000;
const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/** The `q` quantile of sorted `values` by the nearest-rank method (0 for none). */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * Runs per UTC day over the `days` days up to `now` (each day present, empty ones with zeros),
 * for all profiles together or, with `byProfile`, one series per profile. Pure: the same runs
 * give the same figures on every host.
 */
export function runsPerDay(runs: readonly RunSummary[], options: { now: number; days: number; byProfile?: boolean }): DayStats[] {
  const last = Math.floor(options.now / DAY_MS);
  const first = last - options.days + 1;
  const groups = new Map<string, RunSummary[]>();
  const profiles = options.byProfile ? [...new Set(runs.map((r) => r.profile))].sort() : [undefined];
  for (const run of runs) {
    const day = Math.floor(run.createdAt / DAY_MS);
    if (day < first || day > last) continue;
    const key = `${day}:${options.byProfile ? run.profile : ''}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  const stats: DayStats[] = [];
  for (const profile of profiles) {
    for (let day = first; day <= last; day++) {
      const group = groups.get(`${day}:${profile ?? ''}`) ?? [];
      const finished = group.filter((r) => FINISHED.has(r.status));
      const failed = group.filter((r) => r.status === 'failed').length;
      const latencies = finished.map((r) => r.updatedAt - r.createdAt).sort((a, b) => a - b);
      stats.push({
        day: new Date(day * DAY_MS).toISOString().slice(0, 10),
        ...(profile !== undefined ? { profile } : {}),
        runs: group.length,
        failed,
        errorRate: finished.length ? Math.round((failed / finished.length) * 1000) / 1000 : 0,
        p50Ms: quantile(latencies, 0.5),
        p95Ms: quantile(latencies, 0.95),
        cost: Math.round(group.reduce((sum, r) => sum + (r.usage?.cost ?? 0), 0) * 1e12) / 1e12,
        tokens: group.reduce((sum, r) => sum + (r.usage?.tokens ?? 0), 0),
      });
    }
  }
  return stats;
}
