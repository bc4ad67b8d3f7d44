import * as z from 'zod';
import { ErrorInfoSchema } from './error.ts';
import { JOURNAL_EVENT_TYPES, RUN_STATUSES, type JournalEvent } from './journalEvent.ts';
import { PlanSchema } from './plan.ts';

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** The outcome of one `Controller.run`. */
export const ExecutionResultSchema = z.object({
  success: z.boolean(),
  /** `completed`, `failed`, `cancelled`, or `paused` while a step waits for a human. */
  status: z.enum(RUN_STATUSES),
  /** Each completed step's output, keyed by step name, in plan order. */
  outputs: z.record(z.string(), z.unknown()),
  /** Human-readable lines, one per plan and per finished call. */
  logs: z.array(z.string()),
  traceId: z.string(),
  runId: z.string(),
  profile: z.string(),
  plan: PlanSchema,
  /** `completed`, `failed`, or the reason the run stopped (`no_relevant_tool`, `approval_rejected`, …). */
  stopReason: z.string(),
  error: ErrorInfoSchema.optional(),
  /** The run's journal, redacted: every decision, in order. */
  events: z.array(
    z.object({
      runId: z.string(),
      seq: z.number().int(),
      type: z.enum(JOURNAL_EVENT_TYPES),
      at: z.number(),
      data: z.record(z.string(), z.unknown()),
      prev: Hex64,
      hash: Hex64,
    }),
  ),
  /** From the run's first event to its last, by the journal's clock. */
  durationMs: z.number().min(0),
});
/** The result of one run; its events keep the journal's typed union. */
export type ExecutionResult = Omit<z.infer<typeof ExecutionResultSchema>, 'events'> & { events: JournalEvent[] };
