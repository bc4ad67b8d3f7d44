import * as z from 'zod';
import { ValidationError, type ApprovalPolicy } from '../core/index.ts';

const ApprovalEnvSchema = z.object({
  CUGAR_APPROVAL_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(365 * 24 * 3_600_000)
    .optional(),
  CUGAR_APPROVAL_ON_TIMEOUT: z.enum(['approve', 'reject']).optional(),
});

/**
 * The hosts' approval policy from their environment: `CUGAR_APPROVAL_TIMEOUT_MS` (how long a
 * request waits; unset waits forever) and `CUGAR_APPROVAL_ON_TIMEOUT` (`reject`, the default,
 * or `approve`). Empty values count as unset. A bad value is a `ValidationError` naming it.
 */
export function parseApprovalPolicy(env: Record<string, string | undefined>): Pick<ApprovalPolicy, 'timeoutMs' | 'onTimeout'> | undefined {
  const present = Object.fromEntries(Object.keys(ApprovalEnvSchema.shape).flatMap((key) => (env[key] ? [[key, env[key]]] : [])));
  const parsed = ApprovalEnvSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(`${String(issue?.path[0] ?? 'approval settings')}: ${issue?.message ?? 'invalid'}`, { code: 'invalid_config' });
  }
  const { CUGAR_APPROVAL_TIMEOUT_MS: timeoutMs, CUGAR_APPROVAL_ON_TIMEOUT: onTimeout } = parsed.data;
  if (timeoutMs === undefined) return undefined;
  return { timeoutMs, ...(onTimeout ? { onTimeout } : {}) };
}
