/**
 * Who is to blame for a failure, and so what may be done about it.
 *
 * - `AGENT`: a tool or plan misbehaved (bad output, handler threw).
 * - `SYSTEM`: the runtime or a host port broke (storage, clock, bug).
 * - `RESOURCE`: a limit or dependency ran out (timeout, quota, network); usually transient.
 * - `POLICY`: a guardrail refused (permission, budget, isolation).
 * - `USER`: the caller's input is wrong (validation, unknown names).
 */
export type FailureMode = 'AGENT' | 'SYSTEM' | 'RESOURCE' | 'POLICY' | 'USER';

/** The failure modes, in a fixed order. */
export const FAILURE_MODES: readonly FailureMode[] = ['AGENT', 'SYSTEM', 'RESOURCE', 'POLICY', 'USER'];

/** Options shared by every {@link CugarError}. */
export interface CugarErrorOptions {
  /** Stable machine-readable code, `snake_case`. */
  code: string;
  failureMode: FailureMode;
  /** Whether repeating the same call may succeed. Default `false`. */
  retryable?: boolean;
  cause?: unknown;
  /** Structured, JSON-safe detail for callers (validation issues, ids). */
  details?: unknown;
}

/**
 * The base of every error CUGAr throws on purpose.
 *
 * `name` is the subclass name, `code` is stable across versions, and `failureMode` with
 * `retryable` tell a caller (retry policy, HTTP layer) what to do without parsing messages.
 */
export class CugarError extends Error {
  readonly code: string;
  readonly failureMode: FailureMode;
  readonly retryable: boolean;
  readonly details: unknown;

  constructor(message: string, options: CugarErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.failureMode = options.failureMode;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }

  /** A JSON-safe view: never includes the stack. */
  toJSON(): { name: string; code: string; message: string; failureMode: FailureMode; retryable: boolean; details?: unknown } {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      failureMode: this.failureMode,
      retryable: this.retryable,
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}

type SubclassOptions = Partial<Omit<CugarErrorOptions, 'failureMode'>>;

/** Input failed a schema or a rule. Never retryable. */
export class ValidationError extends CugarError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { code: 'validation_failed', ...options, failureMode: 'USER', retryable: false });
  }
}

/** A named thing (profile, tool, run, approval) does not exist. */
export class NotFoundError extends CugarError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { code: 'not_found', ...options, failureMode: 'USER', retryable: false });
  }
}

/** A write would contradict existing state (duplicate tool, conflicting merge). */
export class ConflictError extends CugarError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { code: 'conflict', ...options, failureMode: 'USER', retryable: false });
  }
}

/** A guardrail refused: permissions, isolation, allow-lists, budgets. */
export class PolicyViolationError extends CugarError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { code: 'policy_violation', ...options, failureMode: 'POLICY', retryable: false });
  }
}

/** A tool handler failed. `retryable` says whether the tool thinks a retry may help. */
export class ToolExecutionError extends CugarError {
  constructor(message: string, options: SubclassOptions & { failureMode?: FailureMode } = {}) {
    super(message, { code: 'tool_failed', failureMode: 'AGENT', ...options });
  }
}

/** A limit or dependency ran out: time, quota, network. Retryable by default. */
export class ResourceError extends CugarError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { code: 'resource_exhausted', retryable: true, ...options, failureMode: 'RESOURCE' });
  }
}

/** The runtime itself is in a state it should never reach. */
export class SystemError extends CugarError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { code: 'system_error', ...options, failureMode: 'SYSTEM' });
  }
}

/** No tool of the profile is relevant to the goal: the plan is empty. Fix the goal or the profile. */
export class NoRelevantToolError extends CugarError {
  constructor(profile: string) {
    super(`no tool of profile "${profile}" is relevant to the goal`, { code: 'no_relevant_tool', failureMode: 'USER' });
  }
}

/** A run would start more steps than its inputs allow. */
export class MaxStepsError extends CugarError {
  constructor(executed: number) {
    super(`stopped after ${executed} steps (the limit)`, { code: 'max_steps', failureMode: 'AGENT' });
  }
}

/** The same call (tool and arguments) completed too often: the run is going round in circles. */
export class RepetitionError extends CugarError {
  constructor(tool: string, times: number) {
    super(`the same call to ${tool} repeated ${times} times`, { code: 'repetition_detected', failureMode: 'AGENT' });
  }
}

/** A human (or the approval timeout) rejected a call. */
export class ApprovalRejectedError extends CugarError {
  constructor(tool: string, byTimeout: boolean) {
    super(`the call to ${tool} was ${byTimeout ? 'rejected by the approval timeout' : 'rejected'}`, { code: 'approval_rejected', failureMode: 'POLICY' });
  }
}

/** The outcome of an operation that does not throw: zod's `safeParse` shape. */
export type Result<T, E = CugarError> = { ok: true; value: T } | { ok: false; error: E };

/** Run `fn` and capture a thrown {@link CugarError} as a {@link Result}; anything else is rethrown. */
export function attempt<T>(fn: () => T): Result<T> {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    if (error instanceof CugarError) return { ok: false, error };
    throw error;
  }
}

/**
 * Turn anything thrown into a {@link CugarError}, keeping the original as `cause`.
 * Unknown errors become `SYSTEM` failures unless `fallback` says otherwise.
 */
export function toCugarError(error: unknown, fallback: Omit<CugarErrorOptions, 'cause'> = { code: 'unexpected_error', failureMode: 'SYSTEM' }): CugarError {
  if (error instanceof CugarError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CugarError(message || 'unknown error', { ...fallback, cause: error });
}

/** The error a journal records (`ErrorInfo`), rebuilt with its recorded name, for replays. */
export function errorFromInfo(info: { name: string; code: string; message: string; failureMode: string; retryable: boolean; details?: unknown }): CugarError {
  const error = new CugarError(info.message, {
    code: info.code,
    failureMode: info.failureMode as FailureMode,
    retryable: info.retryable,
    details: info.details,
  });
  Object.defineProperty(error, 'name', { value: info.name });
  return error;
}
