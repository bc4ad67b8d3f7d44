import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJournal } from '../../src/core/index.ts';
import { ADMIN, type Call } from '../support/apiConformance.ts';
import { interruptedRun, untilSettled } from '../support/interruptedRun.ts';
import { startWorker } from './startWorker.ts';

// A Worker's isolate may stop driving a 202-accepted run once its waitUntil budget is spent.
// The directory object's alarm resumes a run that went silent, with no request driving it.
describe('Cloudflare Worker: a run left running is resumed by the directory alarm', () => {
  let call: Call;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ call, close: dispose } = await startWorker({ CUGAR_STALE_RUN_MS: '300' }));
  }, 120_000);
  afterAll(async () => dispose?.());

  it('finishes a run whose journal stops at a started call', async () => {
    const { runId, journal } = await interruptedRun();
    const imported = await call('POST', '/v1/journals', { token: ADMIN, body: { journal: exportJournal(journal) } });
    expect(imported.status).toBe(200);
    const body = await untilSettled(
      async () => (await (await call('GET', `/v1/runs/${runId}`, { token: ADMIN })).json()) as { status: string; outputs?: Record<string, unknown> },
    );
    expect(body).toMatchObject({ status: 'completed', outputs: { 'step-0': 5, 'step-1': 20 } });
    const { events } = (await (await call('GET', `/v1/runs/${runId}/journal`, { token: ADMIN })).json()) as { events: Array<{ type: string }> };
    expect(events.filter((e) => e.type === 'run_resumed')).toHaveLength(1);
  });
});
