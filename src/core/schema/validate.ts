import type * as z from 'zod';
import { ValidationError } from '../errors.ts';

/** One problem found by a schema, in a JSON-safe shape. */
export interface ValidationIssue {
  path: string;
  message: string;
  code: string;
}

/** Flatten zod issues into `{ path, message, code }` rows with dotted paths. */
function describeIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
    code: issue.code,
  }));
}

/**
 * Parse `input` with `schema` or throw a {@link ValidationError} naming `what` failed and why.
 * The boundary helper every public entry point uses.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string, code = 'validation_failed'): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = describeIssues(parsed.error);
  const summary = issues
    .slice(0, 5)
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ');
  throw new ValidationError(`invalid ${what}: ${summary}`, { code, details: { issues } });
}
