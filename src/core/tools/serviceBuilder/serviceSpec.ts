import * as z from 'zod';
import { ValidationError } from '../../errors.ts';
import { JsonValueSchema, type JsonValue } from '../../schema/common.ts';

/** A field name: an identifier, and none of the names that reach prototypes. */
const FieldNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'field names are identifiers of up to 64 characters')
  .refine((name) => !['constructor', 'prototype', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'].includes(name), 'this field name is reserved');

const Text = z.string().max(500);

/** A value's schema: a small JSON Schema subset (string, number, integer, boolean, array, object). */
export type FieldSchema =
  | { type: 'string'; description?: string; enum?: string[]; minLength?: number; maxLength?: number }
  | { type: 'number' | 'integer'; description?: string; minimum?: number; maximum?: number }
  | { type: 'boolean'; description?: string }
  | { type: 'array'; description?: string; items: FieldSchema; maxItems?: number }
  | { type: 'object'; description?: string; properties: Record<string, FieldSchema>; required: string[] };

const StringField = z.strictObject({
  type: z.literal('string'),
  description: Text.optional(),
  enum: z.array(z.string().max(200)).min(1).max(64).optional(),
  minLength: z.number().int().min(0).max(100_000).optional(),
  maxLength: z.number().int().min(0).max(100_000).optional(),
});
const NumberField = z.strictObject({
  type: z.enum(['number', 'integer']),
  description: Text.optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
});
const BooleanField = z.strictObject({ type: z.literal('boolean'), description: Text.optional() });

/** Objects list their properties; `required` names some of them (default none). Unknown properties are refused. */
export const FieldSchemaSchema: z.ZodType<FieldSchema, unknown> = z.lazy(() =>
  z.discriminatedUnion('type', [
    StringField,
    NumberField,
    BooleanField,
    z.strictObject({
      type: z.literal('array'),
      description: Text.optional(),
      items: FieldSchemaSchema,
      maxItems: z.number().int().min(0).max(10_000).optional(),
    }),
    z
      .strictObject({
        type: z.literal('object'),
        description: Text.optional(),
        properties: z.record(FieldNameSchema, FieldSchemaSchema).refine((p) => Object.keys(p).length <= 64, 'at most 64 properties'),
        required: z.array(FieldNameSchema).max(64).default([]),
      })
      .refine((o) => o.required.every((name) => Object.hasOwn(o.properties, name)), 'every required name is one of the properties'),
  ]),
) as z.ZodType<FieldSchema, unknown>;

/** An object of scalar fields, for path parameters and the query string (which arrive as text). */
const ScalarObjectSchema = z
  .strictObject({
    type: z.literal('object'),
    properties: z.record(FieldNameSchema, z.discriminatedUnion('type', [StringField, NumberField, BooleanField])),
    required: z.array(FieldNameSchema).max(64).default([]),
  })
  .refine((o) => Object.keys(o.properties).length <= 32, 'at most 32 fields')
  .refine((o) => o.required.every((name) => Object.hasOwn(o.properties, name)), 'every required name is one of the properties');

/** A route path: `/`, or segments of letters, digits, `.`, `_`, `~`, `-`, and `:name` parameters. */
const PathSchema = z
  .string()
  .max(200)
  .regex(/^\/$|^(\/([A-Za-z0-9._~-]+|:[A-Za-z_][A-Za-z0-9_]{0,63}))+$/, 'a path is / or /segments, each letters, digits, . _ ~ - or a :name parameter')
  .refine((path) => !path.split('/').some((segment) => segment === '.' || segment === '..'), 'a path has no . or .. segment');

const ScalarSchema = z.union([z.string().max(1_000), z.number(), z.boolean()]);

/** One route of the service. */
export const RouteSpecSchema = z.strictObject({
  method: z.enum(['get', 'post', 'put', 'patch', 'delete']),
  path: PathSchema,
  description: Text.optional(),
  /** Types of the path's `:name` parameters (each is a string unless declared). */
  params: ScalarObjectSchema.optional(),
  query: ScalarObjectSchema.optional(),
  /** The JSON body's schema; only for post, put and patch. */
  body: FieldSchemaSchema.optional(),
  response: z.strictObject({
    /** Status of a good answer. Default 200. */
    status: z
      .number()
      .int()
      .min(200)
      .max(299)
      .refine((s) => s !== 204 && s !== 205, 'the answer has a JSON body, so not 204 or 205')
      .default(200),
    schema: FieldSchemaSchema,
  }),
  /** A good request and its answer: the smoke test sends it and the service answers with `response`. */
  example: z.strictObject({
    params: z.record(FieldNameSchema, ScalarSchema).default({}),
    query: z.record(FieldNameSchema, ScalarSchema).default({}),
    body: JsonValueSchema.optional(),
    response: JsonValueSchema,
  }),
});
export type RouteSpec = z.output<typeof RouteSpecSchema>;

/** A service to build: a name and its routes. */
export const ServiceSpecSchema = z.strictObject({
  /** The package's name: lowercase letters, digits and `-`. */
  name: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'a service name is lowercase letters, digits and -, starting with a letter'),
  description: Text.optional(),
  routes: z.array(RouteSpecSchema).min(1).max(32),
});
export type ServiceSpecInput = z.input<typeof ServiceSpecSchema>;

/** A validated spec, its routes' parameter schemas completed from their paths. */
export interface ServiceSpec {
  name: string;
  description?: string;
  routes: (RouteSpec & { params: NonNullable<RouteSpec['params']> })[];
}

/** The `:name` parameters of a path, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}

/** How deep a spec may nest (objects and arrays), and how many values it may hold. */
export const MAX_SPEC_DEPTH = 24;
export const MAX_SPEC_NODES = 20_000;
/** How long a spec's JSON may be, in characters. */
export const MAX_SPEC_CHARS = 200_000;

/** The nesting depth and value count of a JSON-like input, without recursion (a deep input cannot overflow the stack). */
function measure(input: unknown): { depth: number; nodes: number } {
  let depth = 0;
  let nodes = 0;
  const stack: [unknown, number][] = [[input, 1]];
  while (stack.length > 0 && depth <= MAX_SPEC_DEPTH && nodes <= MAX_SPEC_NODES) {
    const [value, level] = stack.pop()!;
    nodes++;
    depth = Math.max(depth, level);
    if (typeof value === 'object' && value !== null) for (const child of Object.values(value)) stack.push([child, level + 1]);
  }
  return { depth, nodes };
}

/** What is wrong with one route beyond its schema, as `path: message` lines. */
function routeProblems(route: RouteSpec, at: string): string[] {
  const problems: string[] = [];
  const names = pathParams(route.path);
  if (new Set(names).size !== names.length) problems.push(`${at}.path: a parameter is named twice`);
  for (const name of Object.keys(route.params?.properties ?? {}))
    if (!names.includes(name)) problems.push(`${at}.params.${name}: not a parameter of ${route.path}`);
  for (const name of names) if (!Object.hasOwn(route.example.params, name)) problems.push(`${at}.example.params.${name}: the example needs a value`);
  for (const name of Object.keys(route.example.params))
    if (!names.includes(name)) problems.push(`${at}.example.params.${name}: not a parameter of ${route.path}`);
  const hasBody = route.method === 'post' || route.method === 'put' || route.method === 'patch';
  if (route.body && !hasBody) problems.push(`${at}.body: a ${route.method.toUpperCase()} request has no body`);
  if (route.body && route.example.body === undefined) problems.push(`${at}.example.body: the example needs a body`);
  if (!route.body && route.example.body !== undefined) problems.push(`${at}.example.body: the route has no body schema`);
  return problems;
}

/**
 * Validate a service spec: its schema, then the rules across fields (each `:name` has an example
 * value, only post/put/patch have a body, no method and path twice). Path parameters without a
 * declared type become required strings. Bad input is a `ValidationError('invalid_service_spec')`
 * listing every problem in `details.issues`. Examples are not checked against their schemas
 * here: that is the smoke test's job, and a mismatch is reported there.
 */
export function parseServiceSpec(input: unknown): ServiceSpec {
  const refuse = (issues: string[]) =>
    new ValidationError(`the service spec is not valid: ${issues.slice(0, 5).join('; ')}${issues.length > 5 ? `; and ${issues.length - 5} more` : ''}`, {
      code: 'invalid_service_spec',
      details: { issues },
    });
  const size = measure(input);
  if (size.depth > MAX_SPEC_DEPTH) throw refuse([`spec: nested ${size.depth} levels deep (the limit is ${MAX_SPEC_DEPTH})`]);
  if (size.nodes > MAX_SPEC_NODES) throw refuse([`spec: ${size.nodes} values (the limit is ${MAX_SPEC_NODES})`]);
  let chars: number;
  try {
    chars = JSON.stringify(input)?.length ?? 0;
  } catch {
    throw refuse(['spec: not a JSON value']);
  }
  if (chars > MAX_SPEC_CHARS) throw refuse([`spec: ${chars} characters of JSON (the limit is ${MAX_SPEC_CHARS})`]);
  const parsed = ServiceSpecSchema.safeParse(input);
  if (!parsed.success) throw refuse(parsed.error.issues.map((issue) => `${['spec', ...issue.path.map(String)].join('.')}: ${issue.message}`));
  const problems: string[] = [];
  const seen = new Set<string>();
  parsed.data.routes.forEach((route, i) => {
    problems.push(...routeProblems(route, `spec.routes.${i}`));
    // Hono matches `/a/:x` and `/a/:y` alike: routes are the same when their paths differ only in parameter names.
    const key = `${route.method} ${route.path.replace(/:[A-Za-z0-9_]+/g, ':')}`;
    if (seen.has(key)) problems.push(`spec.routes.${i}: ${route.method.toUpperCase()} ${route.path} is already a route`);
    seen.add(key);
  });
  if (problems.length > 0) throw refuse(problems);
  const routes = parsed.data.routes.map((route) => {
    const declared = route.params?.properties ?? {};
    const names = pathParams(route.path);
    const properties = Object.fromEntries(names.map((name) => [name, declared[name] ?? { type: 'string' as const }]));
    return { ...route, params: { type: 'object' as const, properties, required: names } };
  });
  return { name: parsed.data.name, ...(parsed.data.description === undefined ? {} : { description: parsed.data.description }), routes };
}

/** A request's example value as it travels in a URL. */
export function exampleText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
