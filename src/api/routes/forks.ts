import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { createRandomIds, forkRun, ModelToolCallSchema } from '../../core/index.ts';
import { HttpError, createRouter } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import { RunOutcomeSchema, RunParam, errorResponses, jsonBody, jsonResponse } from '../schemas.ts';
import { loadRun, outcomeBody, runLinks } from './runs.ts';

/** `POST /v1/runs/{runId}/forks`: the event to fork from and the one change. */
export const ForkBody = z
  .object({
    at: z.number().int().min(0),
    edit: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('goal'), goal: z.string().min(1).max(10_000) }).strict(),
      z
        .object({ kind: z.literal('model_answer'), text: z.string().max(1_000_000).optional(), toolCalls: z.array(ModelToolCallSchema).max(64).optional() })
        .strict(),
      z
        .object({
          kind: z.literal('approval'),
          decision: z.enum(['approve', 'reject', 'edit']),
          reason: z.string().max(2000).optional(),
          args: z.record(z.string(), z.unknown()).optional(),
        })
        .strict(),
    ]),
  })
  .strict()
  .openapi('ForkRequest');

const ids = createRandomIds();

/**
 * Forks: a new run from one event of a run the caller may see, with one change (another goal,
 * model answer or approval decision). Up to that event it follows the recording; then it runs
 * live on this host. Answers with the fork's outcome once it completes, fails or pauses.
 */
export function forkRoutes(runtime: Runtime) {
  return createRouter().openapi(
    createRoute({
      method: 'post',
      path: '/v1/runs/{runId}/forks',
      request: { params: RunParam, body: jsonBody(ForkBody) },
      responses: { 201: jsonResponse(RunOutcomeSchema, 'The fork, once it completes, fails or pauses'), ...errorResponses },
    }),
    async (c) => {
      const { runId } = c.req.valid('param');
      const { at, edit } = c.req.valid('json');
      await loadRun(runtime, c, runId);
      const journal = await runtime.store.readJournal(runId);
      if (at >= journal.length) throw new HttpError(400, 'invalid_fork', `run ${runId} has no event ${at}`);
      const forkId = ids.next('run');
      const outcome = await forkRun(journal, {
        registry: runtime.registry,
        ...(runtime.toolVersions ? { toolVersions: runtime.toolVersions } : {}),
        store: runtime.store,
        config: runtime.config,
        ...(runtime.signer ? { signer: runtime.signer } : {}),
        ...(runtime.models ? { models: runtime.models.models, agent: runtime.models.agent } : {}),
        runId: forkId,
        at,
        edit,
      });
      c.header('Location', runLinks(forkId).self);
      return c.json(outcomeBody(outcome), 201);
    },
  );
}
