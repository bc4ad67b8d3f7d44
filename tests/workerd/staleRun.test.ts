import { unstable_startWorker } from 'wrangler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, ToolRegistry, exportJournal, registerBuiltinTools } from '../../src/core/index.ts';
import { ADMIN, TOKENS, caller, type Call } from '../support/apiConformance.ts';

// A Worker's isolate may stop driving a 202-accepted run once its waitUntil budget is spent.
// The directory object's alarm resumes a run that went silent, with no request driving it.
describe('Cloudflare Worker: a run left running is resumed by the directory alarm', () => {
  let call: Call;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const worker = await unstable_startWorker({
      config: new URL('../../wrangler.jsonc', import.meta.url).pathname,
      bindings: { CUGAR_TOKENS: { type: 'plain_text', value: TOKENS }, CUGAR_STALE_RUN_MS: { type: 'plain_text', value: '300' } },
      dev: { inspector: false, server: { hostname: '127.0.0.1', port: 0 }, persist: false },
    });
    await worker.ready;
    const url = await worker.url;
    call = caller((path, init) => fetch(new URL(path, url), init));
    dispose = () => worker.dispose();
  }, 120_000);
  afterAll(async () => dispose?.());

  it('finishes a run whose journal stops at a started call', async () => {
    const registry = new ToolRegistry();
    registerBuiltinTools(registry);
    const source = new Orchestrator({ registry, store: new InMemoryStore() });
    const done = await source.start('add 2 and 3 then multiply the result by 4', 'demo');
    const journal = await source.store.readJournal(done.runId);
    const cut = journal.findIndex((e) => e.type === 'tool_call_start' && e.data.stepId === 'step-1');
    const imported = await call('POST', '/v1/journals', { token: ADMIN, body: { journal: exportJournal(journal.slice(0, cut + 1)) } });
    expect(imported.status).toBe(200);
    let body: { status: string; outputs?: Record<string, unknown> } = { status: 'running' };
    for (let i = 0; i < 100 && body.status === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      body = (await (await call('GET', `/v1/runs/${done.runId}`, { token: ADMIN })).json()) as typeof body;
    }
    expect(body).toMatchObject({ status: 'completed', outputs: { 'step-0': 5, 'step-1': 20 } });
    const { events } = (await (await call('GET', `/v1/runs/${done.runId}/journal`, { token: ADMIN })).json()) as { events: Array<{ type: string }> };
    expect(events.filter((e) => e.type === 'run_resumed')).toHaveLength(1);
  });
});
