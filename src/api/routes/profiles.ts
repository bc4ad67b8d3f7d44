import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { HttpError, createRouter } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import { ProfileBudgetSchema, ProfileParam, ToolInfoSchema, errorResponses, jsonResponse } from '../schemas.ts';
import { requireProfile } from '../security.ts';

/** A profile's tools and its shared budget. */
export function profileRoutes(runtime: Runtime) {
  return createRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/profiles/{profile}/tools',
        request: { params: ProfileParam },
        responses: { 200: jsonResponse(z.object({ tools: z.array(ToolInfoSchema) }), 'Tools with their JSON Schemas'), ...errorResponses },
      }),
      (c) => {
        const { profile } = c.req.valid('param');
        requireProfile(c, profile);
        // Tools written at run time are listed in their active version, beside the shipped ones.
        return c.json({ tools: (runtime.toolVersions?.registryOf(profile) ?? runtime.registry).list(profile) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/profiles/{profile}/budget',
        request: { params: ProfileParam },
        responses: { 200: jsonResponse(ProfileBudgetSchema, "The profile's shared ceilings (if any) and what its runs have spent"), ...errorResponses },
      }),
      async (c) => {
        const { profile } = c.req.valid('param');
        requireProfile(c, profile);
        // A profile with no tools does not exist here, as its tools route says (404).
        if (!runtime.registry.hasProfile(profile)) throw new HttpError(404, 'unknown_profile', `no profile "${profile}"`);
        return c.json(await runtime.orchestrator.profileBudget(profile), 200);
      },
    );
}
