import * as z from 'zod';
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidatorResult } from '@modelcontextprotocol/sdk/validation/types.js';
import { jsonDepth } from '../api/middleware.ts';
import { McpSchemaError, shortText } from './errors.ts';

/** Largest tool schema accepted, in bytes of JSON. */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** Deepest nesting of objects and arrays accepted in a tool schema. */
export const MAX_SCHEMA_DEPTH = 32;

/** Check a JSON Schema's size and depth; returns its JSON text's byte length. */
function checkBounds(schema: unknown, what: string): void {
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch (cause) {
    throw new McpSchemaError(`${what} is not JSON`, { cause });
  }
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_SCHEMA_BYTES)
    throw new McpSchemaError(`${what} is ${bytes} bytes, more than ${MAX_SCHEMA_BYTES}`, { code: 'mcp_schema_too_large', details: { bytes } });
  if (jsonDepth(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH)
    throw new McpSchemaError(`${what} nests deeper than ${MAX_SCHEMA_DEPTH} levels`, { code: 'mcp_schema_too_large', details: { depth: MAX_SCHEMA_DEPTH } });
}

/** A JSON Schema as zod, or a typed error: bounded first, converted by zod's own `fromJSONSchema`. */
export function zodFromJsonSchema(schema: unknown, what = 'the schema'): z.ZodType {
  checkBounds(schema, what);
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new McpSchemaError(`${what} is not a JSON Schema object`);
  // An identifier names the schema in zod's global registry, which would keep it for good and
  // describe the tool as a `$ref`: the tool's name identifies it already.
  const { $id: _$id, id: _id, ...anonymous } = schema as Record<string, unknown>;
  let converted: z.ZodType;
  try {
    converted = z.fromJSONSchema(anonymous as z.core.JSONSchema.JSONSchema);
  } catch (cause) {
    throw new McpSchemaError(`${what} cannot be used: ${shortText(cause instanceof Error ? cause.message : String(cause))}`, { cause });
  }
  try {
    // The registry describes every tool as JSON Schema; a schema that cannot go back is no use to it.
    z.toJSONSchema(converted, { unrepresentable: 'any' });
  } catch (cause) {
    throw new McpSchemaError(`${what} cannot be described back as JSON Schema`, { cause });
  }
  return converted;
}

/**
 * The zod schema of an MCP tool's `inputSchema`: an object schema (as MCP requires), at most
 * {@link MAX_SCHEMA_BYTES} and {@link MAX_SCHEMA_DEPTH} deep. Throws {@link McpSchemaError}.
 *
 * @example
 * toolParameters({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }).parse({ a: 1 });
 */
export function toolParameters(inputSchema: unknown, tool = 'the tool'): z.ZodType {
  const what = `the input schema of ${tool}`;
  checkBounds(inputSchema, what);
  if (typeof inputSchema !== 'object' || inputSchema === null || (inputSchema as { type?: unknown }).type !== 'object')
    throw new McpSchemaError(`${what} is not an object schema (type "object")`);
  return zodFromJsonSchema(inputSchema, what);
}

/**
 * The SDK's JSON Schema validator port, served by {@link zodFromJsonSchema}: the same bounds as
 * input schemas and no generated code (which a Worker forbids). A schema that cannot be used
 * fails every value it checks, with the reason.
 */
export const zodJsonSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType) {
    let converted: z.ZodType | undefined;
    let refusal = '';
    try {
      converted = zodFromJsonSchema(schema, 'the output schema');
    } catch (error) {
      refusal = error instanceof Error ? error.message : String(error);
    }
    return (input: unknown): JsonSchemaValidatorResult<T> => {
      if (!converted) return { valid: false, data: undefined, errorMessage: refusal };
      const parsed = converted.safeParse(input);
      return parsed.success
        ? { valid: true, data: parsed.data as T, errorMessage: undefined }
        : {
            valid: false,
            data: undefined,
            errorMessage: shortText(parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')),
          };
    };
  },
};
