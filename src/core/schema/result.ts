import * as z from 'zod';
import { ErrorInfoSchema, TraceEventSchema } from './event.ts';
import { PlanSchema } from './plan.ts';

/** The outcome of one controller run. */
export const ExecutionResultSchema = z.object({
  success: z.boolean(),
  /** Each completed step's output, keyed by step name, in plan order. */
  outputs: z.record(z.string(), z.unknown()),
  /** Human-readable lines, one per stage or step. */
  logs: z.array(z.string()),
  traceId: z.string(),
  runId: z.string(),
  profile: z.string(),
  plan: PlanSchema,
  /** `completed`, `failed`, or the planner's reason for an empty plan. */
  stopReason: z.string(),
  error: ErrorInfoSchema.optional(),
  /** The redacted events of this run, in order. */
  events: z.array(TraceEventSchema),
  durationMs: z.number().min(0),
});
export type ExecutionResult = z.infer<typeof ExecutionResultSchema>;
