import { createRoute } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import * as z from 'zod';
import {
  FindingSchema,
  SandboxError,
  StoredToolVersionSchema,
  TOOL_VERSION_STATUSES,
  ToolNameSchema,
  ToolVersionHashSchema,
  ToolVersionProposalSchema,
  redact,
  type ToolVersions,
} from '../../core/index.ts';
import { createRouter, errorBody } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import { ErrorSchema, Profile, errorResponses, jsonBody, jsonResponse } from '../schemas.ts';
import { principalOf, requireProfile, type ApiEnv } from '../security.ts';

const ToolParam = z.object({
  profile: Profile.clone().openapi({ param: { name: 'profile', in: 'path' }, example: 'demo' }),
  name: ToolNameSchema.clone().openapi({ param: { name: 'name', in: 'path' }, example: 'word_count' }),
});
const VersionParam = ToolParam.extend({ hash: ToolVersionHashSchema.clone().openapi({ param: { name: 'hash', in: 'path' } }) });

const ToolVersionSchema = StoredToolVersionSchema.extend({
  status: z.enum(TOOL_VERSION_STATUSES),
  activatedAt: z.number().optional(),
  activatedBy: z.string().optional(),
}).openapi('ToolVersion');
const ProposalBody = ToolVersionProposalSchema.clone().openapi('ToolVersionProposal');
const ProposedSchema = z
  .object({
    version: ToolVersionSchema,
    audit: z.object({ ok: z.literal(true), score: z.number(), warnings: z.array(FindingSchema) }),
    approval: z.object({ status: z.enum(['pending', 'approved']), approve: z.string() }),
  })
  .openapi('ToolVersionProposed');
const RefusedSchema = ErrorSchema.extend({ findings: z.array(FindingSchema) }).openapi('ToolVersionRefused');
const HistorySchema = z
  .object({
    name: z.string(),
    host: z.string(),
    active: z.string().optional(),
    versions: z.array(ToolVersionSchema),
    trail: z.array(z.object({ type: z.string(), name: z.string(), hash: z.string(), by: z.string(), at: z.number() })),
  })
  .openapi('ToolVersionHistory');

const refusals = {
  422: {
    description: 'The patch auditor refused the source (every finding listed), or it does not compile',
    content: { 'application/json': { schema: RefusedSchema } },
  },
  501: { description: 'This host runs no code that was not shipped with it (workerd)', content: { 'application/json': { schema: ErrorSchema } } },
};

/** The reason every tool-version route gives on a host without a sandbox. */
export const NO_SANDBOX_MESSAGE =
  'this host takes no tools written at run time: it has no sandbox for code that was not shipped with it (Cloudflare Workers allow no code generation); propose them on the Node host';

const base = '/v1/profiles/{profile}/tools/{name}/versions';
/** The profile is checked before the path and body are validated: another profile's token learns nothing from a 400. */
const profileGate: MiddlewareHandler<ApiEnv> = async (c, next) => {
  requireProfile(c, c.req.param('profile') ?? '');
  await next();
};
// The principal's id (a hash of its token, not the token): `token:` values are redacted on every channel, this one is meant to be read.
const who = (c: Context) => `principal:${principalOf(c).id}`;

/**
 * Tools written at run time: propose a version (audited; 202 with a pending approval, or 422 with
 * every finding), list a tool's versions with their status and trail, approve a proposal (it
 * becomes active), and activate an earlier approved version (a rollback, re-audited, no second
 * approval). Tokens act only in their profiles. A host without a sandbox answers 501 `unsupported_host`.
 */
export function toolVersionRoutes(runtime: Runtime) {
  const versionsOf = (c: Context): ToolVersions | Response => runtime.toolVersions ?? c.json(errorBody('unsupported_host', NO_SANDBOX_MESSAGE), 501);
  return createRouter()
    .openapi(
      createRoute({
        method: 'post',
        path: base,
        middleware: [profileGate] as const,
        request: { params: ToolParam, body: jsonBody(ProposalBody) },
        responses: { 202: jsonResponse(ProposedSchema, 'Audited and waiting for approval'), ...refusals, ...errorResponses },
      }),
      async (c) => {
        const { profile, name } = c.req.valid('param');
        requireProfile(c, profile);
        const versions = versionsOf(c);
        if (versions instanceof Response) return versions as never;
        try {
          const version = await versions.propose(profile, name, c.req.valid('json'), who(c));
          const approve = `${base.replace('{profile}', profile).replace('{name}', name)}/${version.hash}/approve`;
          return c.json(
            redact({
              version,
              audit: { ok: true as const, score: version.score, warnings: version.warnings },
              approval: { status: version.approvedBy === undefined ? ('pending' as const) : ('approved' as const), approve },
            }),
            202,
          );
        } catch (error) {
          return refusal(c, error) as never;
        }
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: base,
        middleware: [profileGate] as const,
        request: { params: ToolParam },
        responses: { 200: jsonResponse(HistorySchema, 'Every version, newest first, with its status, audit and approver'), ...refusals, ...errorResponses },
      }),
      async (c) => {
        const { profile, name } = c.req.valid('param');
        requireProfile(c, profile);
        const versions = versionsOf(c);
        if (versions instanceof Response) return versions as never;
        const history = await versions.history(profile, name);
        const active = versions.active(profile)[name];
        return c.json(redact({ name, host: versions.host, ...(active ? { active } : {}), versions: history, trail: await versions.trail(profile, name) }), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: `${base}/{hash}/approve`,
        middleware: [profileGate] as const,
        request: { params: VersionParam },
        responses: { 200: jsonResponse(ToolVersionSchema, 'Approved, registered under its hash and active'), ...refusals, ...errorResponses },
      }),
      async (c) => {
        const { profile, name, hash } = c.req.valid('param');
        requireProfile(c, profile);
        const versions = versionsOf(c);
        if (versions instanceof Response) return versions as never;
        return c.json(redact(await versions.approve(profile, name, hash, who(c))), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: `${base}/{hash}/activate`,
        middleware: [profileGate] as const,
        request: { params: VersionParam },
        responses: {
          200: jsonResponse(ToolVersionSchema, 'Active: new runs use it (a rollback when it is an earlier version)'),
          ...refusals,
          ...errorResponses,
        },
      }),
      async (c) => {
        const { profile, name, hash } = c.req.valid('param');
        requireProfile(c, profile);
        const versions = versionsOf(c);
        if (versions instanceof Response) return versions as never;
        try {
          return c.json(redact(await versions.activate(profile, name, hash, who(c))), 200);
        } catch (error) {
          return refusal(c, error) as never;
        }
      },
    );
}

/** A sandbox refusal as the API answers it: 422 with the findings, or 501 on a host that runs no such code; anything else is rethrown. */
function refusal(c: Context, error: unknown): Response {
  if (!(error instanceof SandboxError)) throw error;
  if (error.code === 'unsupported_host') return c.json(errorBody('unsupported_host', error.message), 501);
  const details = error.details as { findings?: unknown } | undefined;
  const findings = z.array(FindingSchema).safeParse(details?.findings);
  return c.json({ ...errorBody(error.code, error.message), findings: findings.success ? findings.data : [] }, 422);
}
