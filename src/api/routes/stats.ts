import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { createRouter } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import { runsPerDay } from '../runStats.ts';
import { Profile, errorResponses, jsonResponse } from '../schemas.ts';
import { mayUse, principalOf, requireProfile } from '../security.ts';

const DayStatsSchema = z
  .object({
    day: z.string(),
    profile: z.string().optional(),
    runs: z.number().int(),
    failed: z.number().int(),
    errorRate: z.number(),
    p50Ms: z.number(),
    p95Ms: z.number(),
    cost: z.number(),
    tokens: z.number(),
  })
  .openapi('DayStats');

/** Runs over time: per day, their count, error rate, latency percentiles and spending. */
export function statsRoutes(runtime: Runtime) {
  return createRouter().openapi(
    createRoute({
      method: 'get',
      path: '/v1/stats/runs',
      request: {
        query: z.object({
          days: z.coerce.number().int().min(1).max(366).default(30),
          profile: Profile.optional(),
          by: z.enum(['day', 'profile']).default('day').openapi({ description: 'One series for every profile the token may see, or one per profile' }),
        }),
      },
      responses: {
        200: jsonResponse(z.object({ days: z.array(DayStatsSchema) }), 'Each UTC day up to today (UTC), oldest first; empty days are zeros'),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { days, profile, by } = c.req.valid('query');
      if (profile) requireProfile(c, profile);
      const principal = principalOf(c);
      const runs = (await runtime.store.listRuns(profile ? { profile } : {})).filter((r) => mayUse(principal, r.profile));
      return c.json({ days: runsPerDay(runs, { now: Date.now(), days, byProfile: by === 'profile' }) }, 200);
    },
  );
}
