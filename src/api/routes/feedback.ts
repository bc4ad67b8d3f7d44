import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { redact } from '../../core/index.ts';
import { HttpError, createRouter } from '../errors.ts';
import { FeedbackBodySchema, FeedbackSchema, feedbackOf, giveFeedback } from '../feedback.ts';
import type { Runtime } from '../runtime.ts';
import { RunParam, errorResponses, jsonBody, jsonResponse } from '../schemas.ts';
import { principalOf } from '../security.ts';
import { loadRun } from './runs.ts';

/** Feedback on a run or one of its events: give it, and read the run's. */
export function feedbackRoutes(runtime: Runtime) {
  return createRouter()
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/runs/{runId}/feedback',
        request: { params: RunParam, body: jsonBody(FeedbackBodySchema) },
        responses: { 201: jsonResponse(FeedbackSchema, "The token's feedback, replacing its earlier feedback on the same run or event"), ...errorResponses },
      }),
      async (c) => {
        const run = await loadRun(runtime, c, c.req.valid('param').runId);
        const body = c.req.valid('json');
        if (body.seq !== undefined && body.seq > run.head.seq) throw new HttpError(404, 'unknown_event', `run ${run.runId} has no event ${body.seq}`);
        // Who gave it is the token's identity, as for approvals.
        const feedback = await giveFeedback(runtime.memory, run.profile, run.runId, `token:${principalOf(c).id}`, body);
        return c.json(redact(feedback), 201);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/runs/{runId}/feedback',
        request: { params: RunParam },
        responses: {
          200: jsonResponse(z.object({ feedback: z.array(FeedbackSchema) }), 'Feedback on the run and its events, newest first'),
          ...errorResponses,
        },
      }),
      async (c) => {
        const run = await loadRun(runtime, c, c.req.valid('param').runId);
        const feedback = (await feedbackOf(runtime.memory, run.profile)).filter((item) => item.runId === run.runId);
        return c.json({ feedback: redact(feedback) }, 200);
      },
    );
}
