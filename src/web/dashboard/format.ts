// Small formatters shared by the dashboard's pages (kept apart so the first load does not pull a page's chunk).

/**
 * Durations and offsets as people read them, with their unit: milliseconds below a second (two
 * decimals below 10 ms), seconds with a decimal below a minute, then minutes and seconds.
 */
export function duration(value: number): string {
  if (value < 1000) return `${value < 10 && !Number.isInteger(value) ? value.toFixed(2) : String(Math.round(value))} ms`;
  if (value < 60_000) return `${(Math.round(value / 100) / 10).toFixed(1)} s`;
  const seconds = Math.round(value / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
