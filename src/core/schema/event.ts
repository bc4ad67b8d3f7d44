import * as z from 'zod';
import { FAILURE_MODES } from '../errors.ts';
import { PlanCandidateSchema, PlanStepSchema, PlanStopReasonSchema } from './plan.ts';

/** A failure as it travels in events and results: no stack, no cause chain. */
export const ErrorInfoSchema = z.object({
  name: z.string(),
  code: z.string(),
  message: z.string(),
  failureMode: z.enum(FAILURE_MODES as [string, ...string[]]),
  retryable: z.boolean(),
  details: z.unknown().optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

const base = {
  /** Milliseconds since the Unix epoch, from the clock port. */
  at: z.number(),
  traceId: z.string(),
  runId: z.string(),
  profile: z.string(),
  stepIndex: z.number().int().min(0).optional(),
  /** Milliseconds the step or stage took, on events that close one. */
  durationMs: z.number().min(0).optional(),
};

/** Every structured event the core emits, discriminated by `type`. */
export const TraceEventSchema = z.discriminatedUnion('type', [
  z.object({ ...base, type: z.literal('run_started'), data: z.object({ goal: z.string(), metadata: z.record(z.string(), z.unknown()) }) }),
  z.object({ ...base, type: z.literal('plan_started'), data: z.object({ goal: z.string(), maxSteps: z.number().int(), minSimilarity: z.number() }) }),
  z.object({
    ...base,
    type: z.literal('plan_created'),
    data: z.object({
      planId: z.string(),
      source: z.enum(['pattern', 'ranking']),
      steps: z.array(PlanStepSchema),
      candidates: z.array(PlanCandidateSchema),
      selected: z.array(z.string()),
      stopReason: PlanStopReasonSchema,
    }),
  }),
  z.object({ ...base, type: z.literal('tool_call_start'), data: z.object({ step: z.string(), tool: z.string(), input: z.unknown() }) }),
  z.object({ ...base, type: z.literal('tool_call_complete'), data: z.object({ step: z.string(), tool: z.string(), output: z.unknown() }) }),
  z.object({ ...base, type: z.literal('tool_call_error'), data: z.object({ step: z.string(), tool: z.string(), error: ErrorInfoSchema }) }),
  z.object({
    ...base,
    type: z.literal('run_completed'),
    data: z.object({ success: z.boolean(), stopReason: z.string(), error: ErrorInfoSchema.optional() }),
  }),
]);
export type TraceEvent = z.infer<typeof TraceEventSchema>;
export type TraceEventType = TraceEvent['type'];
/** The event of one `type`. */
export type TraceEventOf<T extends TraceEventType> = Extract<TraceEvent, { type: T }>;
