import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT, type Call } from '../support/apiConformance.ts';
import { startModelServer, type ModelServer } from '../support/modelServer.ts';
import { startWorker } from './startWorker.ts';

// The Worker in real workerd with a model from its vars and secrets: the default adapter
// (@ai-sdk/openai-compatible) calls the scripted server on loopback over real HTTP, streamed,
// and an agent run with an approval in the middle completes in the Durable Objects.

const KEY = 'sk-canary-workerd-3c8e1f6a92b4';

describe('Cloudflare Worker in workerd: agent runs', () => {
  let call: Call;
  let dispose: () => Promise<void>;
  let models: ModelServer;
  beforeAll(async () => {
    models = await startModelServer([{ calls: [{ name: 'send_message', args: { to: 'ops', text: 'deploy finished' } }] }, { text: 'Ops know.' }]);
    ({ call, close: dispose } = await startWorker({ CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small', CUGAR_MODEL_KEY: KEY, CUGAR_MODEL_STREAM: '1' }));
  }, 120_000);
  afterAll(async () => {
    await dispose?.();
    await models?.close();
  });

  it('calls the model through the default adapter, pauses for the approval, and completes', async () => {
    const paused = (await (await call('POST', '/v1/runs', { body: { goal: 'tell ops the deploy finished', profile: 'demo' }, headers: WAIT })).json()) as {
      runId: string;
      status: string;
      pendingApproval: { approvalId: string };
    };
    expect(paused.status).toBe('paused');
    expect(models.requests).toHaveLength(1);
    expect(models.requests[0]).toMatchObject({ authorization: `Bearer ${KEY}`, body: { model: 'small', stream: true } });
    const decided = await call('POST', `/v1/approvals/${paused.pendingApproval.approvalId}`, { body: { decision: 'approve' } });
    const text = await decided.text();
    expect(JSON.parse(text)).toMatchObject({ status: 'completed', outputs: { answer: 'Ops know.' } });
    const journal = await (await call('GET', `/v1/runs/${paused.runId}/journal`)).text();
    expect(journal).toContain('"source":"agent"');
    expect(journal).toContain('model_call_complete');
    for (const body of [text, journal]) expect(body).not.toContain(KEY);
  });
});
