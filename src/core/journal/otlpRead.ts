import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { lookupTable } from '../lookupTable.ts';

// ---- reading OTLP/HTTP JSON from any producer

const AnyValueSchema: z.ZodType<unknown> = z.lazy(() =>
  z
    .object({
      stringValue: z.string().optional(),
      intValue: z.union([z.string(), z.number()]).optional(),
      doubleValue: z.union([z.number(), z.string()]).optional(),
      boolValue: z.boolean().optional(),
      bytesValue: z.string().optional(),
      arrayValue: z.object({ values: z.array(AnyValueSchema).optional() }).optional(),
      kvlistValue: z.object({ values: z.array(z.object({ key: z.string(), value: AnyValueSchema.optional() })).optional() }).optional(),
    })
    .loose(),
);
const AttributesSchema = z.array(z.object({ key: z.string(), value: AnyValueSchema.optional() }).loose()).optional();
const Nanos = z.union([z.string().regex(/^\d+$/, 'a time in nanoseconds'), z.number().int().nonnegative()]);
const OtlpInputSchema = z
  .object({
    resourceSpans: z.array(
      z
        .object({
          resource: z.object({ attributes: AttributesSchema }).loose().optional(),
          scopeSpans: z
            .array(
              z
                .object({
                  scope: z.object({ name: z.string().optional() }).loose().optional(),
                  spans: z
                    .array(
                      z
                        .object({
                          traceId: z.string(),
                          spanId: z.string(),
                          parentSpanId: z.string().optional(),
                          name: z.string(),
                          startTimeUnixNano: Nanos,
                          endTimeUnixNano: Nanos,
                          attributes: AttributesSchema,
                          status: z
                            .object({ code: z.union([z.number(), z.string()]).optional(), message: z.string().optional() })
                            .loose()
                            .optional(),
                        })
                        .loose(),
                    )
                    .optional(),
                })
                .loose(),
            )
            .optional(),
        })
        .loose(),
    ),
  })
  .loose();

/** A span read from an OTLP JSON file, flattened for display. */
export interface OtlpSpanView {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** Milliseconds since the epoch (fractions kept). */
  startMs: number;
  endMs: number;
  /** Depth below the trace's root spans (0 for a root). */
  depth: number;
  service?: string;
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage?: string;
}

function plainValue(value: unknown): unknown {
  const v = (value ?? {}) as Record<string, unknown>;
  if (v['stringValue'] !== undefined) return v['stringValue'];
  if (v['intValue'] !== undefined) return Number(v['intValue']);
  if (v['doubleValue'] !== undefined) return Number(v['doubleValue']);
  if (v['boolValue'] !== undefined) return v['boolValue'];
  if (v['bytesValue'] !== undefined) return v['bytesValue'];
  if (v['arrayValue'] !== undefined) return ((v['arrayValue'] as { values?: unknown[] }).values ?? []).map(plainValue);
  if (v['kvlistValue'] !== undefined)
    return Object.fromEntries(
      ((v['kvlistValue'] as { values?: Array<{ key: string; value?: unknown }> }).values ?? []).map((kv) => [kv.key, plainValue(kv.value)]),
    );
  return null;
}

const attributesOf = (list: ReadonlyArray<{ key: string; value?: unknown }> | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, plainValue(a.value)]));
const STATUS_CODES: Record<string, number> = lookupTable({ STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 });

/**
 * Read an OTLP/HTTP JSON `ExportTraceServiceRequest` (from CUGAr or any OpenTelemetry
 * exporter) into flat spans ordered as a waterfall: by start time, children after their
 * parents, each with its depth. Malformed input throws a `ValidationError` (`invalid_otlp`).
 */
export function readOtlp(input: unknown): OtlpSpanView[] {
  const parsed = OtlpInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(`not OTLP trace JSON: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`, { code: 'invalid_otlp' });
  }
  const spans: OtlpSpanView[] = [];
  for (const resource of parsed.data.resourceSpans) {
    const resourceAttributes = attributesOf(resource.resource?.attributes);
    const service = typeof resourceAttributes['service.name'] === 'string' ? resourceAttributes['service.name'] : undefined;
    for (const scope of resource.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        const code = span.status?.code;
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          name: span.name,
          startMs: Number(BigInt(span.startTimeUnixNano) / 1000n) / 1000,
          endMs: Number(BigInt(span.endTimeUnixNano) / 1000n) / 1000,
          depth: 0,
          ...(service ? { service } : {}),
          attributes: attributesOf(span.attributes),
          statusCode: typeof code === 'number' ? code : (STATUS_CODES[code ?? ''] ?? 0),
          ...(span.status?.message ? { statusMessage: span.status.message } : {}),
        });
      }
    }
  }
  // Depth-first from the roots (spans whose parent is absent from the file), siblings by start
  // time and, for equal starts (common at millisecond resolution), in the file's order.
  const order = new Map(spans.map((span, i) => [span, i]));
  const byStart = (a: OtlpSpanView, b: OtlpSpanView) => a.startMs - b.startMs || order.get(a)! - order.get(b)!;
  const ids = new Set(spans.map((s) => `${s.traceId}:${s.spanId}`));
  const children = new Map<string, OtlpSpanView[]>();
  const roots: OtlpSpanView[] = [];
  for (const span of spans) {
    const parent = span.parentSpanId ? `${span.traceId}:${span.parentSpanId}` : undefined;
    if (parent && ids.has(parent)) children.set(parent, [...(children.get(parent) ?? []), span]);
    else roots.push(span);
  }
  const ordered: OtlpSpanView[] = [];
  const stack = roots
    .sort(byStart)
    .reverse()
    .map((span) => ({ span, depth: 0 }));
  const seen = new Set<string>();
  while (stack.length) {
    const { span, depth } = stack.pop()!;
    const key = `${span.traceId}:${span.spanId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    ordered.push({ ...span, depth });
    for (const child of (children.get(key) ?? []).sort(byStart).reverse()) stack.push({ span: child, depth: depth + 1 });
  }
  // Spans whose parents form a cycle are never reached from a root; they are listed last.
  for (const span of spans.sort(byStart)) if (!seen.has(`${span.traceId}:${span.spanId}`)) ordered.push(span);
  return ordered;
}
