import * as z from 'zod';
import type { RunSummary } from '../core/index.ts';
import { HttpError } from './errors.ts';

/** What the runs list sorts by. */
export const RUN_SORTS = ['created', 'updated', 'duration', 'cost', 'tokens'] as const;
export type RunSort = (typeof RUN_SORTS)[number];

/** A page of runs and where the next one starts (absent on the last page). */
export interface RunPage {
  runs: RunSummary[];
  nextCursor?: string;
}

function keyOf(run: RunSummary, sort: RunSort): number {
  switch (sort) {
    case 'created':
      return run.createdAt;
    case 'updated':
      return run.updatedAt;
    case 'duration':
      return run.updatedAt - run.createdAt;
    case 'cost':
      return run.usage?.cost ?? 0;
    case 'tokens':
      return run.usage?.tokens ?? 0;
  }
}

// The cursor names the last run of a page by its sort key and id, and the order it was read in:
// a page follows from there however many runs were added meanwhile, and a cursor of another
// order is refused rather than misread.
const CursorSchema = z.tuple([z.enum(RUN_SORTS), z.enum(['asc', 'desc']), z.number(), z.string().min(1).max(512)]);

function encode(value: z.infer<typeof CursorSchema>): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

function decode(cursor: string): z.infer<typeof CursorSchema> {
  try {
    const binary = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'));
    const parsed = CursorSchema.safeParse(JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))));
    if (parsed.success) return parsed.data;
  } catch {
    // Falls through to the typed error below.
  }
  throw new HttpError(400, 'invalid_cursor', 'the cursor is not one this list gave out');
}

/**
 * Sort `runs` by `sort` in `order` (ties by run id, so the order is total) and cut the page after
 * `cursor`, at most `limit` long. Pure: the same runs and options give the same page on every host.
 */
export function pageRuns(runs: readonly RunSummary[], options: { sort: RunSort; order: 'asc' | 'desc'; limit: number; cursor?: string | undefined }): RunPage {
  const { sort, order, limit } = options;
  const sign = order === 'asc' ? 1 : -1;
  const compare = (a: RunSummary, b: RunSummary) => sign * (keyOf(a, sort) - keyOf(b, sort) || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
  const sorted = [...runs].sort(compare);
  let start = 0;
  if (options.cursor !== undefined) {
    const [cursorSort, cursorOrder, key, runId] = decode(options.cursor);
    if (cursorSort !== sort || cursorOrder !== order)
      throw new HttpError(400, 'invalid_cursor', `the cursor was given out for sort=${cursorSort}&order=${cursorOrder}`);
    const after = (run: RunSummary) => sign * (keyOf(run, sort) - key || (run.runId < runId ? -1 : run.runId > runId ? 1 : 0)) > 0;
    start = sorted.findIndex(after);
    if (start < 0) start = sorted.length;
  }
  const page = sorted.slice(start, start + limit);
  const last = page.at(-1);
  return {
    runs: page,
    ...(last && start + limit < sorted.length ? { nextCursor: encode([sort, order, keyOf(last, sort), last.runId]) } : {}),
  };
}
