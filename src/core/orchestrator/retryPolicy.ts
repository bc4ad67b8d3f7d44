import { CugarError } from '../errors.ts';
import type { Random } from '../ports.ts';
import { RetryPolicyConfigSchema, type RetryPolicyConfig, type RetryPolicyInput } from '../schema/retry.ts';
import { parseOrThrow } from '../schema/validate.ts';

const TERMINAL_NAMES = new Set([
  'ValidationError',
  'ZodError',
  'AuthenticationError',
  'PermissionError',
  'PolicyViolationError',
  'NotFoundError',
  'ConflictError',
]);
const TRANSIENT_NAMES = new Set(['TimeoutError', 'ConnectionError', 'NetworkError', 'ResourceError']);

/**
 * Whether a failure is transient: timeouts, network errors, HTTP 5xx and `RESOURCE`
 * failures are; validation, auth, permission, `POLICY` and `USER` failures never are.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof CugarError) {
    if (error.failureMode === 'POLICY' || error.failureMode === 'USER') return false;
    if (error.failureMode === 'RESOURCE') return true;
    if (error.retryable) return true;
    const cause = error.cause;
    return cause !== undefined && cause !== error ? isTransient(cause) : false;
  }
  if (typeof error !== 'object' || error === null) return false;
  const { name, status, statusCode, code } = error as { name?: string; status?: number; statusCode?: number; code?: string };
  const httpStatus = status ?? statusCode;
  if (typeof httpStatus === 'number') return httpStatus >= 500 || httpStatus === 429 || httpStatus === 408;
  if (name && TERMINAL_NAMES.has(name)) return false;
  if (name && TRANSIENT_NAMES.has(name)) return true;
  if (typeof code === 'string' && /^(?:ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|EAI_AGAIN|ENETUNREACH|UND_ERR_)/.test(code)) return true;
  // fetch() rejects with a TypeError on network failure.
  return name === 'TypeError' && /fetch|network/i.test((error as Error).message ?? '');
}

/**
 * When and how long to wait before trying a failed call again.
 *
 * @example
 * const policy = createRetryPolicy({ strategy: 'exponential', maxAttempts: 3, baseDelay: 100 });
 * policy.shouldRetry(new ResourceError('busy'), 1); // true
 * policy.delay(1, random); // ≈ 100 ms ± 10 %
 */
export interface RetryPolicy {
  readonly config: Readonly<RetryPolicyConfig>;
  /** Whether attempt `attempt` (1-based) having failed with `error`, another may follow. */
  shouldRetry(error: unknown, attempt: number): boolean;
  /** The delay before attempt `attempt + 1`, jittered with one draw from `random`; also returns the draw. */
  delay(attempt: number, random: Random): { delayMs: number; jitter: number };
}

/** Build a {@link RetryPolicy}; invalid settings throw a `ValidationError`. */
export function createRetryPolicy(input: RetryPolicyInput = {}): RetryPolicy {
  const config = Object.freeze(parseOrThrow(RetryPolicyConfigSchema, input, 'retry policy'));
  return {
    config,
    shouldRetry(error, attempt) {
      return config.strategy !== 'none' && attempt < config.maxAttempts && isTransient(error);
    },
    delay(attempt, random) {
      const nominal =
        config.strategy === 'linear'
          ? config.baseDelay * attempt
          : config.strategy === 'exponential'
            ? config.baseDelay * config.multiplier ** (attempt - 1)
            : 0;
      const draw = random.next();
      const jittered = nominal * (1 + config.jitter * (2 * draw - 1));
      return { delayMs: Math.round(Math.min(config.maxDelay, Math.max(0, jittered))), jitter: draw };
    },
  };
}
