import * as z from 'zod';
import { FAILURE_MODES } from '../errors.ts';

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
