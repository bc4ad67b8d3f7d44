import * as z from 'zod';

/** The fields of an `ExecutionContext`. */
export const ExecutionContextSchema = z.object({
  traceId: z.string().min(1).max(200),
  runId: z.string().min(1).max(200),
  /** The same as `runId`: the seed's name for it. */
  requestId: z.string().min(1).max(200),
  userIntent: z.string(),
  profile: z.string().min(1),
  userId: z.string().max(200).optional(),
  memoryScope: z.string().max(200).optional(),
  conversationId: z.string().max(200).optional(),
  sessionId: z.string().max(200).optional(),
  parentContext: z.string().max(200).optional(),
});
export type ExecutionContextData = z.infer<typeof ExecutionContextSchema>;
