import type { ServiceSpec } from './serviceSpec.ts';

const UNSAFE_IN_SOURCE = /[<>\u2028\u2029]/g;
const escapeUnsafe = (text: string) => text.replace(UNSAFE_IN_SOURCE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * A string as a JavaScript string literal: its JSON text, with `<`, `>`, U+2028 and U+2029
 * escaped (so no `<!--`, `-->` or `</script>` and no line break appears in the source).
 */
export function stringLiteral(text: string): string {
  return escapeUnsafe(JSON.stringify(text));
}

/**
 * A value as a JavaScript expression that cannot be anything but that value: its JSON text as one
 * {@link stringLiteral} handed to `JSON.parse` (an object literal would read a `__proto__` key as
 * the prototype). Every part of the generated code that comes from a spec is one of these, or a
 * string literal of a path or name that passed its pattern; none is spliced in as code.
 */
export function jsonExpression(value: unknown): string {
  return `JSON.parse(${stringLiteral(JSON.stringify(value))})`;
}

/**
 * The service's code, once with TypeScript types (`typed`) and once as plain JavaScript: the same
 * text but for the annotations, so what the sandbox runs is what the user downloads. The routes
 * come from `spec` only through {@link jsonExpression}, the paths through {@link stringLiteral};
 * the methods are from a closed list.
 */
function serviceBody(spec: ServiceSpec, typed: boolean): string {
  const t = (annotation: string) => (typed ? annotation : '');
  const routes = spec.routes.map((route, i) => `app.${route.method}(${stringLiteral(route.path)}, (c${t(': Context')}) => answer(c, ROUTES[${i}]${t('!')}));`);
  return `${t(`/** A value's schema: a small JSON Schema subset. */
export type FieldSchema =
  | { type: 'string'; description?: string; enum?: string[]; minLength?: number; maxLength?: number }
  | { type: 'number' | 'integer'; description?: string; minimum?: number; maximum?: number }
  | { type: 'boolean'; description?: string }
  | { type: 'array'; description?: string; items: FieldSchema; maxItems?: number }
  | { type: 'object'; description?: string; properties: Record<string, FieldSchema>; required: string[] };

type Fields = { type: 'object'; properties: Record<string, FieldSchema>; required: string[] };

/** One route: its method, path, request and response schemas, and an example. */
export interface Route {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  description?: string;
  params: Fields;
  query?: Fields;
  body?: FieldSchema;
  response: { status: number; schema: FieldSchema };
  example: { params: Record<string, string | number | boolean>; query: Record<string, string | number | boolean>; body?: unknown; response: unknown };
}

`)}/** The service's routes, from its spec. */
${typed ? 'export ' : ''}const ROUTES${t(': readonly Route[]')} = ${jsonExpression(spec.routes)};

function textProblems(schema${t(": Extract<FieldSchema, { type: 'string' }>")}, value${t(': string')}, at${t(': string')})${t(': string[]')} {
  if (schema.enum && !schema.enum.includes(value)) return [\`\${at}: expected one of \${schema.enum.join(', ')}\`];
  if (schema.minLength !== undefined && value.length < schema.minLength) return [\`\${at}: shorter than \${schema.minLength}\`];
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return [\`\${at}: longer than \${schema.maxLength}\`];
  return [];
}

function numberProblems(schema${t(": Extract<FieldSchema, { type: 'number' | 'integer' }>")}, value${t(': number')}, at${t(': string')})${t(': string[]')} {
  if (schema.type === 'integer' && !Number.isInteger(value)) return [\`\${at}: expected an integer\`];
  if (schema.minimum !== undefined && value < schema.minimum) return [\`\${at}: less than \${schema.minimum}\`];
  if (schema.maximum !== undefined && value > schema.maximum) return [\`\${at}: more than \${schema.maximum}\`];
  return [];
}

function scalarProblems(schema${t(': FieldSchema')}, value${t(': unknown')}, at${t(': string')})${t(': string[]')} {
  if (schema.type === 'string') return typeof value === 'string' ? textProblems(schema, value, at) : [\`\${at}: expected a string\`];
  if (schema.type === 'boolean') return typeof value === 'boolean' ? [] : [\`\${at}: expected true or false\`];
  if (schema.type !== 'number' && schema.type !== 'integer') return [];
  return typeof value === 'number' && Number.isFinite(value) ? numberProblems(schema, value, at) : [\`\${at}: expected a number\`];
}

/** What is wrong with \`value\` for \`schema\`, as \`path: message\` lines (none when it fits). */
${typed ? 'export ' : ''}function problemsOf(schema${t(': FieldSchema')}, value${t(': unknown')}, at = '$')${t(': string[]')} {
  if (schema.type === 'array') {
    if (!Array.isArray(value)) return [\`\${at}: expected an array\`];
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return [\`\${at}: more than \${schema.maxItems} items\`];
    return value.flatMap((item, i) => problemsOf(schema.items, item, \`\${at}[\${i}]\`));
  }
  if (schema.type !== 'object') return scalarProblems(schema, value, at);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [\`\${at}: expected an object\`];
  const fields = new Map(Object.entries(value));
  const problems${t(': string[]')} = [];
  for (const [name, field] of Object.entries(schema.properties)) {
    if (fields.has(name)) problems.push(...problemsOf(field, fields.get(name), \`\${at}.\${name}\`));
    else if (schema.required.includes(name)) problems.push(\`\${at}.\${name}: required\`);
  }
  for (const name of fields.keys()) if (!Object.hasOwn(schema.properties, name)) problems.push(\`\${at}.\${name}: not in the schema\`);
  return problems;
}

/** A path parameter's or query field's text as the value its schema declares. */
function fromText(schema${t(': FieldSchema')}, text${t(': string')})${t(': unknown')} {
  if ((schema.type === 'number' || schema.type === 'integer') && text.trim() !== '') return Number(text);
  if (schema.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** The declared fields of \`raw\` (path parameters or the query), each read from its text and checked. */
function readFields(schema${t(': Fields | undefined')}, raw${t(': Record<string, string>')}, at${t(': string')}, problems${t(': string[]')})${t(': Map<string, unknown>')} {
  const values = new Map${t('<string, unknown>')}();
  if (!schema) return values;
  const given = new Map(Object.entries(raw));
  for (const [name, field] of Object.entries(schema.properties)) {
    const text = given.get(name);
    if (text === undefined) {
      if (schema.required.includes(name)) problems.push(\`\${at}.\${name}: required\`);
      continue;
    }
    const value = fromText(field, text);
    problems.push(...problemsOf(field, value, \`\${at}.\${name}\`));
    values.set(name, value);
  }
  return values;
}

function refusal(c${t(': Context')}, message${t(': string')}, issues${t(': string[]')}) {
  return c.json({ error: { code: 'bad_request', message, issues } }, 400);
}

/**
 * Check the request against the route's schemas (400 with every problem when it does not fit),
 * then answer the route's example response, with each of its top-level fields that the request
 * also names (a path parameter, a query field or a body field) taken from the request.
 */
async function answer(c${t(': Context')}, route${t(': Route')}) {
  const problems${t(': string[]')} = [];
  const params = readFields(route.params, c.req.param(), 'params', problems);
  const query = readFields(route.query, c.req.query(), 'query', problems);
  let body${t(': unknown')};
  if (route.body) {
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return refusal(c, 'the body is not JSON', []);
    }
    problems.push(...problemsOf(route.body, body, 'body'));
  }
  if (problems.length > 0) return refusal(c, 'the request does not match its schema', problems);
  const reply = JSON.parse(JSON.stringify(route.example.response));
  const schema = route.response.schema;
  if (schema.type === 'object' && typeof reply === 'object' && reply !== null && !Array.isArray(reply)) {
    const given = new Map([...params, ...query, ...(typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.entries(body) : [])]);
    for (const name of Object.keys(schema.properties)) if (given.has(name)) reply[name] = given.get(name);
  }
  return c.json(reply, route.response.status${t(' as ContentfulStatusCode')});
}

/** The service: one handler per route of its spec. */
${typed ? 'export ' : ''}const app = new Hono();
app.onError((_error, c) => c.json({ error: { code: 'internal', message: 'the service failed' } }, 500));
${routes.join('\n')}
`;
}

/** The service as a TypeScript module that imports Hono: `app` (also the default export), `ROUTES` and `problemsOf`. */
export function serviceModule(spec: ServiceSpec): string {
  const head = `/**\n * ${spec.name}: a Hono service generated from its spec by CUGAr's microservice_builder.\n * Each route checks its request against the spec's schemas and answers the spec's example.\n */\n`;
  return `${head}import { Hono, type Context } from 'hono';\nimport type { ContentfulStatusCode } from 'hono/utils/http-status';\n\n${serviceBody(spec, true)}\nexport default app;\n`;
}

/**
 * The same service as a sandbox tool source (plain JavaScript, no import: the realm's `hono`
 * library provides `Hono`). Its one export sends each request of its input through
 * `app.request` and returns what came back: `[{ status, contentType, body }]`, bodies as text.
 */
export function sandboxModule(spec: ServiceSpec): string {
  return `${serviceBody(spec, false)}
export default async function smoke(input) {
  const answers = [];
  for (const request of input.requests) {
    const init = { method: request.method, headers: request.headers };
    if (request.body !== null) init.body = request.body;
    const response = await app.request(request.url, init);
    answers.push({ status: response.status, contentType: response.headers.get('content-type'), body: await response.text() });
  }
  return answers;
}
`;
}
