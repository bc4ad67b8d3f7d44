import * as z from 'zod';

/** The largest goal accepted, in UTF-8 bytes. */
export const MAX_GOAL_BYTES = 64 * 1024;

/** UTF-8 length of a string, counted without encoding it. Lone surrogates count as U+FFFD (3 bytes). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The shape of a profile name, for schemas built outside the core (HTTP parameters). */
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A profile name: letters, digits, `_` and `-`, 1–64 characters, starting alphanumeric. */
export const ProfileNameSchema = z.string().regex(PROFILE_NAME_PATTERN, 'profile names are 1-64 letters, digits, "_" or "-", starting with a letter or digit');

/** A tool name: a lowercase identifier, 1–64 characters. */
export const ToolNameSchema = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'tool names are 1-64 lowercase letters, digits or "_", starting with a letter');

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON value schema (finite numbers only). */
export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValueSchema), z.record(z.string(), JsonValueSchema)]),
);

/** Free-form metadata attached to a request: a JSON object. */
export const MetadataSchema = z.record(z.string(), JsonValueSchema);
export type Metadata = z.infer<typeof MetadataSchema>;

/** A non-empty goal of at most {@link MAX_GOAL_BYTES} UTF-8 bytes. */
export const GoalTextSchema = z
  .string()
  .refine((goal) => goal.trim().length > 0, 'the goal is empty')
  .refine((goal) => utf8Length(goal) <= MAX_GOAL_BYTES, `the goal is longer than ${MAX_GOAL_BYTES} bytes`);
