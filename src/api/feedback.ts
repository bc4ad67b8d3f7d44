import '@hono/zod-openapi';
import * as z from 'zod';
import type { FactRecord, MemoryManager } from '../core/index.ts';

/**
 * Feedback on runs: a score and a comment on a run, or on one of its events (a span), kept with
 * the run's profile as facts of the `feedback` namespace, apart from the journal. A finished
 * run's journal never moves again (its head is signed), so feedback does not go into it; one
 * person's later feedback on the same run or span replaces theirs, and history stays in the facts.
 */
export const FEEDBACK_NAMESPACE = 'feedback';

export const FeedbackBodySchema = z
  .object({
    /** -1 (bad) to 1 (good); thumbs are -1 and 1. */
    score: z.number().min(-1).max(1),
    comment: z.string().max(2000).optional(),
    /** The event (span) the feedback is about; absent for the whole run. */
    seq: z.number().int().min(0).optional(),
  })
  .strict()
  .openapi('FeedbackBody');

export const FeedbackSchema = z
  .object({
    runId: z.string(),
    score: z.number(),
    comment: z.string().optional(),
    seq: z.number().int().optional(),
    by: z.string(),
    at: z.number(),
  })
  .openapi('Feedback');
export type Feedback = z.infer<typeof FeedbackSchema>;

const StoredSchema = FeedbackSchema.omit({ at: true });

function fromFact(fact: FactRecord): Feedback | undefined {
  const parsed = StoredSchema.safeParse(fact.value);
  return parsed.success ? { ...parsed.data, at: fact.at } : undefined;
}

/** Keep `body` as `by`'s feedback on `runId`. */
export async function giveFeedback(
  memory: MemoryManager,
  profile: string,
  runId: string,
  by: string,
  body: z.infer<typeof FeedbackBodySchema>,
): Promise<Feedback> {
  const value = { runId, score: body.score, by, ...(body.comment ? { comment: body.comment } : {}), ...(body.seq !== undefined ? { seq: body.seq } : {}) };
  const fact = await memory.storeFact(profile, FEEDBACK_NAMESPACE, value, { key: `${runId}:${body.seq ?? 'run'}:${by}` });
  return { ...value, at: fact.at };
}

/** Every current piece of feedback in `profile` (each person's newest per run or span), newest first. */
export async function feedbackOf(memory: MemoryManager, profile: string): Promise<Feedback[]> {
  if (!(await memory.namespaces(profile)).includes(FEEDBACK_NAMESPACE)) return [];
  const seen = new Set<string>();
  const current: Feedback[] = [];
  for (const fact of await memory.query(profile, FEEDBACK_NAMESPACE, { limit: 100_000 })) {
    if (fact.key === undefined || seen.has(fact.key)) continue;
    seen.add(fact.key);
    const feedback = fromFact(fact);
    if (feedback) current.push(feedback);
  }
  return current;
}

/**
 * Which runs have feedback (on the run or any of its events), and the sum of the scores given to
 * the whole run: a run is positive or negative by what people said of it, not of one step.
 */
export function feedbackByRun(feedback: readonly Feedback[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const item of feedback) totals.set(item.runId, (totals.get(item.runId) ?? 0) + (item.seq === undefined ? item.score : 0));
  return totals;
}

export const FEEDBACK_FILTERS = ['positive', 'negative', 'any', 'none'] as const;

/** Whether a run with feedback `total` (undefined: none) passes `filter`. */
export function feedbackMatches(filter: (typeof FEEDBACK_FILTERS)[number], total: number | undefined): boolean {
  switch (filter) {
    case 'positive':
      return total !== undefined && total > 0;
    case 'negative':
      return total !== undefined && total < 0;
    case 'any':
      return total !== undefined;
    case 'none':
      return total === undefined;
  }
}
