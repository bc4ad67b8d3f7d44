import { createRoute } from '@hono/zod-openapi';
import { redact } from '../../core/index.ts';
import { createRouter } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import { PlanBody, PlanResponseSchema, errorResponses, jsonBody, jsonResponse } from '../schemas.ts';
import { requireProfile } from '../security.ts';

/** `POST /v1/plan`: a dry run of the planner, with every candidate and its scores. */
export function planRoutes(runtime: Runtime) {
  return createRouter().openapi(
    createRoute({
      method: 'post',
      path: '/v1/plan',
      request: { body: jsonBody(PlanBody) },
      responses: { 200: jsonResponse(PlanResponseSchema, 'A dry-run plan with every candidate and its scores'), ...errorResponses },
    }),
    (c) => {
      const { goal, profile, preferences } = c.req.valid('json');
      requireProfile(c, profile);
      const registry = runtime.toolVersions?.registryOf(profile) ?? runtime.registry.sandbox(profile);
      // Redacted like every other view: a plan echoes the goal and the inputs filled from it.
      return c.json(
        redact(runtime.planner.plan({ goal, profile, registry, traceId: 'dry-run', runId: 'dry-run', ...(preferences ? { preferences } : {}) })),
        200,
      );
    },
  );
}
