import { ConflictError, CugarError, NotFoundError, PolicyViolationError, ResourceError, SystemError, ValidationError, toCugarError } from '../core/index.ts';
import { lookupTable } from '../core/lookupTable.ts';

/** A {@link CugarError} as it crosses a Durable Object call (RPC keeps an error's message, not its class). */
export type ErrorRecord = ReturnType<CugarError['toJSON']>;

/** What an object method answers: its value, or the typed error it failed with. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ErrorRecord };

const ERROR_CLASSES: Record<string, new (message: string, options: { code: string; details?: unknown; retryable?: boolean }) => CugarError> = lookupTable({
  ValidationError,
  NotFoundError,
  ConflictError,
  PolicyViolationError,
  ResourceError,
  SystemError,
});

/** The typed error an {@link ErrorRecord} describes: its class by name, else a {@link CugarError} with the same code and failure mode. */
export function reviveError(record: ErrorRecord): CugarError {
  const options = { code: record.code, retryable: record.retryable, ...(record.details === undefined ? {} : { details: record.details }) };
  const Class = ERROR_CLASSES[record.name];
  return Class ? new Class(record.message, options) : new CugarError(record.message, { ...options, failureMode: record.failureMode });
}

/** Run `fn` and answer its value, or the error it threw as an {@link ErrorRecord}. */
export async function capture<T>(fn: () => Promise<T> | T): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error: toCugarError(error).toJSON() };
  }
}

/** The value of an {@link Outcome}, or its error thrown again with its class. */
export async function unwrap<T>(outcome: Promise<Outcome<T>>): Promise<T> {
  const result = await outcome;
  if (!result.ok) throw reviveError(result.error);
  return result.value;
}
