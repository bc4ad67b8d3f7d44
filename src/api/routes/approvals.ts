import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { redact } from '../../core/index.ts';
import { HttpError, createRouter } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import { ApprovalParam, ApprovalSchema, DecisionBody, Profile, RunOutcomeSchema, errorResponses, jsonBody, jsonResponse } from '../schemas.ts';
import { mayUse, principalOf, requireProfile } from '../security.ts';
import { outcomeBody } from './runs.ts';

/** Approvals: the inbox, and a decision that continues the run. */
export function approvalRoutes(runtime: Runtime) {
  return createRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/approvals',
        request: { query: z.object({ status: z.enum(['pending', 'approved', 'rejected', 'timed_out', 'cancelled']).optional(), profile: Profile.optional() }) },
        responses: { 200: jsonResponse(z.object({ approvals: z.array(ApprovalSchema) }), 'Approvals, oldest first'), ...errorResponses },
      }),
      async (c) => {
        const { status, profile } = c.req.valid('query');
        if (profile) requireProfile(c, profile);
        const principal = principalOf(c);
        const approvals = (await runtime.orchestrator.listApprovals({ ...(status ? { status } : {}), ...(profile ? { profile } : {}) })).filter((a) =>
          mayUse(principal, a.profile),
        );
        return c.json({ approvals: redact(approvals) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/approvals/{approvalId}',
        request: { params: ApprovalParam, body: jsonBody(DecisionBody) },
        responses: { 200: jsonResponse(RunOutcomeSchema, 'The run after the decision'), ...errorResponses },
      }),
      async (c) => {
        const { approvalId } = c.req.valid('param');
        const decision = c.req.valid('json');
        const approval = await runtime.store.getApproval(approvalId);
        // Another profile's approval answers as one that does not exist: ids cannot be probed.
        if (!approval || !mayUse(principalOf(c), approval.profile)) throw new HttpError(404, 'unknown_approval', `no approval ${approvalId}`);
        // Who decided is the token's identity; `by` is only the name the decider gives.
        const principal = `token:${principalOf(c).id}`;
        const outcome = await runtime.orchestrator.resolveApproval(approvalId, { ...decision, by: decision.by ?? principal, principal });
        return c.json(outcomeBody(outcome), 200);
      },
    );
}
