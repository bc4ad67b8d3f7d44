// The API's request and response schemas. Requests are derived from the core's schemas, so a
// rule changes in one place; responses are declared for `/openapi.json` and checked against
// the core's types by the route handlers' return types, so the document cannot drift.
// Imported for its effect: it gives zod's schemas `.openapi()`, which the schemas below call.
// zod itself comes as a namespace, like the core's: @hono/zod-openapi's `z` is all of zod as
// one object, and the browser builds narrow that export (vite.config.ts).
import '@hono/zod-openapi';
import * as z from 'zod';
import {
  ApprovalDecisionSchema,
  ErrorInfoSchema,
  FactRecordSchema,
  FAILURE_MODES,
  GoalTextSchema,
  JOURNAL_EVENT_DATA,
  JOURNAL_EVENT_TYPES,
  JournalEventSchema,
  JournalHeadSchema,
  JsonValueSchema,
  PlanSchema,
  PlanningPreferencesSchema,
  ProfileNameSchema,
  StartOptionsSchema,
  ToolBudgetSchema,
  ToolMetaSchema,
  type JournalEventData,
  type JournalEventType,
} from '../core/index.ts';
import { LogAuditSchema } from './auditSchemas.ts';

// ---- shared pieces
//
// zod copies a schema's methods onto it when it is built, and the core's schemas are built
// before @hono/zod-openapi adds `.openapi()`: `.clone()` (or any derivation such as `.extend`)
// makes an instance that has it.

// The core's JSON value schema is recursive (metadata, fact values, recorded inputs): naming it
// lets the document refer to it instead of unrolling it without end. For a lazy schema,
// `.openapi()` names the instance it is called on, here the core's own.
z.ZodType.prototype.openapi.call(JsonValueSchema, 'JsonValue');

/** The body of every error. */
export const ErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).openapi('Error');

/** A profile name, as the core defines it. */
export const Profile = ProfileNameSchema;
export const ProfileParam = z.object({ profile: Profile.clone().openapi({ param: { name: 'profile', in: 'path' }, example: 'demo' }) });
export const RunParam = z.object({
  runId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'runId', in: 'path' } }),
});
export const ApprovalParam = z.object({
  approvalId: z
    .string()
    .min(1)
    .max(300)
    .openapi({ param: { name: 'approvalId', in: 'path' } }),
});

const RunStatusSchema = z.enum(['running', 'paused', 'completed', 'failed', 'cancelled']);
const ApprovalStatusSchema = z.enum(['pending', 'approved', 'rejected', 'timed_out', 'cancelled']);
const BudgetUsageSchema = z.object({ cost: z.number(), calls: z.number(), tokens: z.number() }).openapi('BudgetUsage');
const Data = z.record(z.string(), z.unknown());

// ---- requests

export const PlanBody = z
  .object({ goal: GoalTextSchema, profile: Profile, preferences: PlanningPreferencesSchema.partial().optional() })
  .strict()
  .openapi('PlanRequest');

/**
 * The subset of run ids the API accepts: 8–128 letters, digits, `_` or `-`. A refinement of the
 * core's pattern (which also allows `.` and `:` and a single character): ids chosen over HTTP
 * appear in URLs and must not be short enough to guess or collide by accident.
 */
const API_RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{7,127}$/;
const ApiRunId = StartOptionsSchema.shape.runId.unwrap().regex(API_RUN_ID, 'run ids are 8-128 letters, digits, "_" or "-", starting with a letter or digit');

/** `POST /v1/runs`: the core's start options that HTTP callers may set, plus the goal and profile. */
export const RunBody = StartOptionsSchema.pick({ metadata: true, preferences: true, plan: true, mode: true })
  .extend({
    goal: GoalTextSchema,
    profile: Profile,
    budget: ToolBudgetSchema.partial().strict().optional(),
    // The document shows the stricter of the two patterns the id must match.
    runId: ApiRunId.optional().openapi({
      description: 'Run id to use (409 if it exists); cannot be combined with an Idempotency-Key',
      example: 'run_3f9c2a7d5e1b4c8a',
      pattern: API_RUN_ID.source,
    }),
  })
  .strict()
  .openapi('RunRequest');

/** A decision on an approval; `by` defaults to the caller's token. */
// `principal` is the host's to record (the token's identity), never the caller's to claim.
export const DecisionBody = ApprovalDecisionSchema.omit({ principal: true })
  .extend({ by: ApprovalDecisionSchema.shape.by.optional() })
  .strict()
  .openapi('ApprovalDecision');

export const IngestBody = z
  .object({
    profile: Profile,
    documents: z
      .array(z.object({ path: z.string().min(1).max(1024), text: z.string() }).strict())
      .min(1)
      .max(10_000),
  })
  .strict()
  .openapi('IngestRequest');
export const QueryBody = z
  .object({
    profile: Profile,
    query: z.string().min(1).max(2000),
    k: z.number().int().min(1).max(50).default(5),
    mode: z.enum(['vector', 'keyword', 'hybrid']).default('hybrid'),
  })
  .strict()
  .openapi('QueryRequest');
export const FactBody = z
  .object({ profile: Profile, namespace: z.string(), value: z.unknown(), key: z.string().max(256).optional() })
  .strict()
  .openapi('FactRequest');
export const JournalBody = z
  .object({
    journal: z
      .string()
      .min(1)
      .max(50 * 1024 * 1024),
  })
  .strict()
  .openapi('JournalUpload');

// ---- responses

export const HealthSchema = z.object({ status: z.literal('ok'), version: z.string() }).openapi('Health');

export const ToolInfoSchema = ToolMetaSchema.extend({ profile: z.string(), name: z.string(), inputSchema: Data }).openapi('Tool');

export const ProfileBudgetSchema = z.object({ profile: z.string(), budget: ToolBudgetSchema.optional(), usage: BudgetUsageSchema }).openapi('ProfileBudget');

export const PlanResponseSchema = PlanSchema.clone().openapi('Plan');

export const ApprovalSchema = z
  .object({
    approvalId: z.string(),
    runId: z.string(),
    traceId: z.string(),
    profile: z.string(),
    stepId: z.string(),
    tool: z.string(),
    args: Data,
    argsHash: z.string(),
    reason: z.string(),
    status: ApprovalStatusSchema,
    requestedAt: z.number(),
    deadline: z.number().optional(),
    decision: z.enum(['approve', 'reject', 'edit']).optional(),
    decidedBy: z.string().optional(),
    decidedByPrincipal: z.string().optional(),
    decisionReason: z.string().optional(),
    decidedAt: z.number().optional(),
  })
  .openapi('Approval');

const PartialResultSchema = z.object({
  completedSteps: z.array(z.string()),
  lastOutput: z.unknown(),
  failureMode: z.enum(FAILURE_MODES as [string, ...string[]]),
  recoverable: z.boolean(),
  recoveryStrategies: z.array(z.string()),
});

/** A run as its journal stands: the core's `RunOutcome`. */
export const RunOutcomeSchema = z
  .object({
    runId: z.string(),
    traceId: z.string(),
    profile: z.string(),
    goal: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    status: RunStatusSchema,
    success: z.boolean(),
    outputs: Data,
    stopReason: z.string().optional(),
    error: ErrorInfoSchema.optional(),
    partial: PartialResultSchema.optional(),
    pendingApproval: ApprovalSchema.optional(),
    waitingFor: z.object({ runId: z.string() }).optional().openapi({ description: 'The delegated sub-run this paused run waits for' }),
    usage: BudgetUsageSchema,
    budget: z.object({ run: ToolBudgetSchema, profile: ToolBudgetSchema.optional() }),
    head: JournalHeadSchema,
  })
  .openapi('RunOutcome');

/** `202 Accepted`: the run is durable and running; follow it at `links.events`. */
export const RunAcceptedSchema = z
  .object({
    runId: z.string(),
    traceId: z.string(),
    status: z.literal('running'),
    links: z.object({
      self: z.string().openapi({ example: '/v1/runs/run_3f9c2a7d5e1b4c8a' }),
      events: z.string().openapi({ example: '/v1/runs/run_3f9c2a7d5e1b4c8a/events' }),
    }),
  })
  .openapi('RunAccepted');

export const RunSummarySchema = z
  .object({
    runId: z.string(),
    traceId: z.string(),
    profile: z.string(),
    goal: z.string(),
    status: RunStatusSchema,
    createdAt: z.number(),
    updatedAt: z.number(),
    head: JournalHeadSchema,
    pendingApprovalId: z.string().optional(),
    waitingFor: z.string().optional(),
    tools: z.array(z.string()).optional(),
    usage: BudgetUsageSchema.optional(),
    errorCode: z.string().optional(),
  })
  .openapi('RunSummary');

export const JournalEventResponseSchema = JournalEventSchema.clone().openapi('JournalEvent');

const traceRecordFields = {
  traceId: z.string(),
  runId: z.string(),
  profile: z.string(),
  seq: z.number().int(),
  at: z.number(),
  timestamp: z.string(),
  durationMs: z.number().optional(),
  stepId: z.string().optional(),
};
/** A trace record: a journal event with its trace, profile, timestamp and duration, its data typed by `type` like the journal's. */
export const TraceRecordSchema = z
  .discriminatedUnion(
    'type',
    JOURNAL_EVENT_TYPES.map((type) => z.object({ ...traceRecordFields, type: z.literal(type), data: JOURNAL_EVENT_DATA[type] })) as unknown as [
      z.ZodObject<typeof traceRecordFields & { type: z.ZodLiteral<JournalEventType>; data: z.ZodType<JournalEventData<JournalEventType>> }>,
    ],
  )
  .openapi('TraceRecord');

const OtlpAttributeSchema = z.object({
  key: z.string(),
  value: z.union([
    z.object({ stringValue: z.string() }),
    z.object({ intValue: z.string() }),
    z.object({ doubleValue: z.number() }),
    z.object({ boolValue: z.boolean() }),
  ]),
});
const OtlpSpanSchema = z.object({
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().optional(),
  name: z.string(),
  kind: z.number(),
  startTimeUnixNano: z.string(),
  endTimeUnixNano: z.string(),
  attributes: z.array(OtlpAttributeSchema),
  status: z.object({ code: z.number(), message: z.string().optional() }),
});
/** An OTLP/HTTP JSON `ExportTraceServiceRequest`. */
export const OtlpExportSchema = z
  .object({
    resourceSpans: z.array(
      z.object({
        resource: z.object({ attributes: z.array(OtlpAttributeSchema) }),
        scopeSpans: z.array(z.object({ scope: z.object({ name: z.string(), version: z.string() }), spans: z.array(OtlpSpanSchema) })),
      }),
    ),
  })
  .openapi('OtlpTraceExport');

export const IngestReportSchema = z.object({ documents: z.number().int(), chunks: z.number().int(), replaced: z.number().int() }).openapi('IngestReport');

export const RagHitSchema = z
  .object({
    id: z.string(),
    path: z.string(),
    chunk: z.number().int(),
    offset: z.number().int(),
    score: z.number(),
    vectorScore: z.number().optional(),
    keywordScore: z.number().optional(),
    snippet: z.string(),
    matched: z.array(z.string()),
  })
  .openapi('RagHit');

export const FactSchema = FactRecordSchema.clone().openapi('Fact');

const VerifiedSchema = z.object({ ok: z.literal(true), head: JournalHeadSchema.optional(), count: z.number().int() });
const BrokenSchema = z.object({ ok: z.literal(false), seq: z.number().int(), reason: z.string(), count: z.number().int() });
/** Chain verification of one stored run. */
export const RunVerificationSchema = z
  .union([VerifiedSchema.extend({ runId: z.string() }), BrokenSchema.extend({ runId: z.string() })])
  .openapi('RunVerification');
/** Chain verification of an uploaded journal (`runId` null when it is empty). */
export const JournalVerificationSchema = z
  .union([VerifiedSchema.extend({ runId: z.string().nullable() }), BrokenSchema.extend({ runId: z.string().nullable() })])
  .openapi('JournalVerification');
export const KeysSchema = z
  .object({ keys: z.array(z.object({ keyId: z.string(), algorithm: z.literal('Ed25519'), publicKey: z.string().regex(/^[0-9a-f]{64}$/) })) })
  .openapi('Keys');
export const AuditSchema = z
  .object({
    ok: z.boolean(),
    runs: z.array(z.object({ runId: z.string(), ok: z.boolean(), seq: z.number().int().optional(), reason: z.string().optional() })),
    log: LogAuditSchema,
  })
  .openapi('Audit');
export const ImportedSchema = z.object({ runId: z.string(), events: z.number().int() }).openapi('ImportedJournal');
export const ReplaySchema = z
  .union([
    z.object({ ok: z.literal(true), events: z.number().int(), head: JournalHeadSchema.optional() }),
    z.object({
      ok: z.literal(false),
      events: z.number().int(),
      divergence: z.object({ seq: z.number().int(), expected: JournalEventSchema.optional(), actual: JournalEventSchema.optional() }),
    }),
  ])
  .openapi('ReplayResult');

// ---- response helpers for route definitions

export const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });

/** The error responses every authenticated route may give. */
export const errorResponses = {
  400: errorResponse('Invalid request'),
  401: errorResponse('Missing or unknown token'),
  403: errorResponse('Token not allowed for this profile, or a policy refused'),
  404: errorResponse('Not found'),
  409: errorResponse('Conflicts with the current state'),
  429: errorResponse('Rate limited; see Retry-After'),
} as const;

/** A JSON response of `schema`. */
export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

/** A required JSON request body of `schema`. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { 'application/json': { schema } } });

/** The 422 of a reused Idempotency-Key. */
export const idempotencyMismatch = errorResponse('Idempotency-Key reused with a different body');
