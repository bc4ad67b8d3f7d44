import * as z from 'zod';
import type { Sandbox, SandboxLimits } from '../../sandbox/sandbox.ts';
import type { AuditLimits } from '../../sandbox/patchAuditor.ts';
import { exampleText, type FieldSchema, type ServiceSpec } from './serviceSpec.ts';

type Route = ServiceSpec['routes'][number];

/** One request the smoke test sends through `app.request` in the sandbox. */
export interface SmokeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

/** One check of one route: what was sent, what was expected, what came back, and what was wrong. */
export interface SmokeCheck {
  route: string;
  /** `example`: the spec's example request; `bad_body`: a body that is not JSON; `missing_query`: the query left out. */
  case: 'example' | 'bad_body' | 'missing_query';
  request: SmokeRequest;
  expectedStatus: number;
  /** The status that came back (absent when the sandbox did not answer). */
  status?: number;
  /** The body that came back, as text (its first 2,000 characters). */
  answer?: string;
  ok: boolean;
  problems: string[];
}

/** A zod schema of a spec's {@link FieldSchema}: the host's own check of what the service answers. */
export function zodOfField(schema: FieldSchema): z.ZodType {
  switch (schema.type) {
    case 'string': {
      let text = z.string();
      if (schema.minLength !== undefined) text = text.min(schema.minLength);
      if (schema.maxLength !== undefined) text = text.max(schema.maxLength);
      const allowed = schema.enum;
      return allowed ? text.refine((v) => allowed.includes(v), `expected one of ${allowed.join(', ')}`) : text;
    }
    case 'number':
    case 'integer': {
      let number = schema.type === 'integer' ? z.number().int() : z.number();
      if (schema.minimum !== undefined) number = number.min(schema.minimum);
      if (schema.maximum !== undefined) number = number.max(schema.maximum);
      return number;
    }
    case 'boolean':
      return z.boolean();
    case 'array':
      return schema.maxItems === undefined ? z.array(zodOfField(schema.items)) : z.array(zodOfField(schema.items)).max(schema.maxItems);
    case 'object': {
      const shape = Object.fromEntries(
        Object.entries(schema.properties).map(([name, field]) => [name, schema.required.includes(name) ? zodOfField(field) : zodOfField(field).optional()]),
      );
      return z.strictObject(shape);
    }
  }
}

function urlOf(route: Route, withQuery: boolean): string {
  const path = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => encodeURIComponent(exampleText(route.example.params[name] ?? '')));
  const query = Object.entries(route.example.query).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(exampleText(value))}`);
  return withQuery && query.length > 0 ? `${path}?${query.join('&')}` : path;
}

function requestOf(route: Route, options: { withQuery?: boolean; body?: string } = {}): SmokeRequest {
  const body = route.body ? (options.body ?? JSON.stringify(route.example.body)) : null;
  return {
    method: route.method.toUpperCase(),
    url: urlOf(route, options.withQuery ?? true),
    headers: body === null ? {} : { 'content-type': 'application/json' },
    body,
  };
}

/** The checks of every route, before they are sent: the example, and a request each route must refuse. */
export function smokePlan(spec: ServiceSpec): Omit<SmokeCheck, 'ok' | 'problems'>[] {
  return spec.routes.flatMap((route) => {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    const checks: Omit<SmokeCheck, 'ok' | 'problems'>[] = [{ route: name, case: 'example', request: requestOf(route), expectedStatus: route.response.status }];
    if (route.body) checks.push({ route: name, case: 'bad_body', request: requestOf(route, { body: '{' }), expectedStatus: 400 });
    if ((route.query?.required.length ?? 0) > 0)
      checks.push({ route: name, case: 'missing_query', request: requestOf(route, { withQuery: false }), expectedStatus: 400 });
    return checks;
  });
}

const AnswerSchema = z.object({ status: z.number().int(), contentType: z.string().nullable(), body: z.string() });
const RefusalSchema = z.object({ error: z.object({ code: z.literal('bad_request'), message: z.string() }) });

/** What is wrong with one answer, judged on the host against the spec (never by the service's own checks). */
function judge(route: Route, check: Omit<SmokeCheck, 'ok' | 'problems'>, answer: z.output<typeof AnswerSchema>): string[] {
  if (answer.status !== check.expectedStatus) return [`status ${answer.status}, expected ${check.expectedStatus}; the body: ${answer.body.slice(0, 500)}`];
  const problems: string[] = [];
  if (!answer.contentType?.startsWith('application/json')) problems.push(`content-type ${answer.contentType ?? 'missing'}, expected application/json`);
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return [...problems, `the body is not JSON: ${answer.body.slice(0, 200)}`];
  }
  const schema = check.expectedStatus === 400 ? RefusalSchema : zodOfField(route.response.schema);
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    problems.push(
      ...parsed.error.issues
        .slice(0, 20)
        .map((issue) => `body${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${issue.message}`),
    );
  return problems;
}

/** What the smoke test found: whether it ran, on which sandbox host, and every check. */
export interface SmokeReport {
  host: string;
  ran: boolean;
  /** Why it did not run, or why the sandbox failed (a `SandboxError`'s code and message). */
  error?: { code: string; message: string };
  checks: SmokeCheck[];
}

/**
 * Load `source` (the service as a sandbox tool, see `sandboxModule`) into `sandbox` with the
 * `hono` realm library, send every planned request through `app.request` in one call, and judge
 * each answer on the host: status, content type, and the body against the route's response
 * schema (or the refusal's shape). A sandbox failure (audit, timeout, memory, a throw) is reported
 * in `error` with every check failed; a refusing host (workerd) rejects instead.
 */
export async function smokeTestService(
  sandbox: Sandbox,
  spec: ServiceSpec,
  source: string,
  options: { limits?: SandboxLimits; audit?: AuditLimits } = {},
): Promise<SmokeReport> {
  const plan = smokePlan(spec);
  const failAll = (code: string, message: string): SmokeReport => ({
    host: sandbox.host,
    ran: false,
    error: { code, message },
    checks: plan.map((check) => ({ ...check, ok: false, problems: [`not run: ${message}`] })),
  });
  let output: unknown;
  try {
    const tool = await sandbox.load(source, { library: 'hono', ...options });
    try {
      output = await tool.call({ requests: plan.map((check) => check.request) });
    } finally {
      await tool.close();
    }
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'failed';
    if (code === 'unsupported_host') throw error;
    return failAll(code, error instanceof Error ? error.message : String(error));
  }
  const answers = z.array(AnswerSchema).length(plan.length).safeParse(output);
  if (!answers.success) return failAll('bad_output', 'the service in the sandbox answered something other than one answer per request');
  const checks = plan.map((check, i) => {
    const route = spec.routes.find((r) => `${r.method.toUpperCase()} ${r.path}` === check.route)!;
    const answer = answers.data[i]!;
    const problems = judge(route, check, answer);
    return { ...check, status: answer.status, answer: answer.body.slice(0, 2_000), ok: problems.length === 0, problems };
  });
  return { host: sandbox.host, ran: true, checks };
}
