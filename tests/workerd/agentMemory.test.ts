import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT, type Call } from '../support/apiConformance.ts';
import { startModelServer, type ModelServer } from '../support/modelServer.ts';
import { startWorker } from './startWorker.ts';

// Memory in the loop on the Worker in real workerd (Durable Objects): an agent run writes its
// goal, plan, results and reflection to the profile's namespaces, and a later run of the
// profile recalls the reflection (written by the model from the journal's account) before its
// first model call, journaled.

describe('Cloudflare Worker in workerd: memory in the loop of agent runs', () => {
  let call: Call;
  let dispose: () => Promise<void>;
  let models: ModelServer;
  beforeAll(async () => {
    models = await startModelServer([
      { text: 'The deploy finished at noon.' },
      { text: 'Asked when the deploy finished; answered at noon without tools.' },
      { text: 'At noon, as noted before.' },
      { text: 'Asked again; answered from the earlier note.' },
    ]);
    ({ call, close: dispose } = await startWorker({ CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small', CUGAR_MODEL_KEY: 'sk-workerd-memory-loop' }));
  }, 120_000);
  afterAll(async () => {
    await dispose?.();
    await models?.close();
  });

  it('keeps goals, plans, execution and reflection, and recalls the reflection in the next run', async () => {
    const start = async (goal: string) =>
      (await (await call('POST', '/v1/runs', { body: { goal, profile: 'demo' }, headers: WAIT })).json()) as { runId: string; status: string };
    const first = await start('when did the deploy finish');
    expect(first.status).toBe('completed');
    const facts = (await (await call('GET', '/v1/memory/facts?profile=demo')).json()) as { namespaces: string[] };
    expect(facts.namespaces).toEqual(expect.arrayContaining(['execution', 'goals', 'plans', 'reflection']));
    const reflection = (await (await call('GET', '/v1/memory/facts?profile=demo&namespace=reflection')).json()) as {
      facts: Array<{ key: string; value: { summary: string } }>;
    };
    expect(reflection.facts[0]).toMatchObject({ key: first.runId });
    expect(reflection.facts[0]!.value.summary).toBe('Asked when the deploy finished; answered at noon without tools.');
    // The model wrote it from the journal's own account of the run.
    const reflectRequest = JSON.stringify(models.requests[1]!.body.messages);
    expect(reflectRequest).toContain('Asked: \\"when did the deploy finish\\"');
    expect(reflectRequest).toContain('answered: \\"The deploy finished at noon.\\"');

    const second = await start('when did the deploy finish today');
    expect(second.status).toBe('completed');
    const body = (await (await call('GET', `/v1/runs/${second.runId}/journal`)).json()) as unknown;
    const events = (Array.isArray(body) ? body : (body as { events: unknown[] }).events) as Array<{ type: string; data: { notes?: Array<{ goal?: string }> } }>;
    const recalled = events.find((event) => event.type === 'memory_recalled');
    expect(recalled?.data.notes?.[0]).toMatchObject({ goal: 'when did the deploy finish' });
    expect(JSON.stringify(models.requests[2]!.body.messages)).toContain('answered at noon without tools');
  });
});
