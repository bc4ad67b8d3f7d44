import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT, type Call } from '../support/apiConformance.ts';
import { untilSettled } from '../support/interruptedRun.ts';
import { startWorker } from './startWorker.ts';

// The Worker drives time: an approval deadline fires on the directory object's alarm, with no
// request re-driving the run (the test only reads while it waits).
describe('Cloudflare Worker: approval deadlines fire on a Durable Object alarm', () => {
  let call: Call;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ call, close: dispose } = await startWorker({ CUGAR_APPROVAL_TIMEOUT_MS: '400', CUGAR_APPROVAL_ON_TIMEOUT: 'reject' }));
  }, 120_000);
  afterAll(async () => dispose?.());

  it('times a paused run out by its policy and finishes it', async () => {
    const paused = (await (
      await call('POST', '/v1/runs', { body: { goal: 'send_message(to="ops", text="deploy finished")', profile: 'demo' }, headers: WAIT })
    ).json()) as {
      runId: string;
      status: string;
      pendingApproval: { deadline?: number };
    };
    expect(paused.status).toBe('paused');
    expect(paused.pendingApproval.deadline).toBeTypeOf('number');
    const { status } = await untilSettled(async () => (await (await call('GET', `/v1/runs/${paused.runId}`)).json()) as { status: string });
    expect(status).toBe('failed');
    const { events } = (await (await call('GET', `/v1/runs/${paused.runId}/journal`)).json()) as {
      events: Array<{ type: string; data: Record<string, unknown> }>;
    };
    expect(events.filter((e) => e.type === 'approval_timeout').map((e) => e.data['action'])).toEqual(['reject']);
    expect(events.at(-1)).toMatchObject({ type: 'run_completed', data: { success: false, stopReason: 'approval_rejected' } });
    const approvals = (await (await call('GET', '/v1/approvals?status=pending')).json()) as { approvals: unknown[] };
    expect(approvals.approvals).toEqual([]);
  });
});
