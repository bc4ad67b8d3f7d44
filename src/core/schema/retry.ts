import * as z from 'zod';

/** Retry settings; delays in milliseconds. */
export const RetryPolicyConfigSchema = z.object({
  strategy: z.enum(['exponential', 'linear', 'none']).default('exponential'),
  /** Total attempts including the first. Default 3. */
  maxAttempts: z.number().int().min(1).max(100).default(3),
  baseDelay: z.number().min(0).max(3_600_000).default(100),
  maxDelay: z.number().min(0).max(3_600_000).default(5_000),
  multiplier: z.number().min(1).max(100).default(2),
  /** Fraction of each delay randomised, ± (from the seeded random port). Default 0.1. */
  jitter: z.number().min(0).max(1).default(0.1),
});
export type RetryPolicyConfig = z.output<typeof RetryPolicyConfigSchema>;
export type RetryPolicyInput = z.input<typeof RetryPolicyConfigSchema>;
