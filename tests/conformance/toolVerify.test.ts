import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryStore, Orchestrator, ToolRegistry, eventsOf, registerBuiltinTools, replay, staticModels } from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';
import { scriptedModel } from '../support/scriptedModel.ts';

// A tool's verify hook: a result that fails the tool's own check is a failed attempt
// (`verification_failed`), retried under the retry policy; a final failure goes back to the
// model in an agent run. Replay runs the same check on the recorded result.

function registry(rates: number[]) {
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  let call = 0;
  tools.register('demo', 'exchange_rate', {
    description: 'Exchange rate between two currencies',
    parameters: z.object({ from: z.string(), to: z.string() }),
    idempotent: true,
    handler: () => ({ rate: rates[call++] ?? rates.at(-1)! }),
    verify: (output) => ((output as { rate: number }).rate > 0 ? true : 'a rate is positive'),
  });
  return tools;
}

const orchestrator = (tools: ToolRegistry, model = scriptedModel([], 'm1')) =>
  new Orchestrator({
    registry: tools,
    store: new InMemoryStore(),
    ids: createSequentialIds('verify'),
    sleep: async () => undefined,
    models: staticModels([['m1', model]]),
  });

describe('tool verify hooks', () => {
  it('retry a result that fails the check, in a planned run', async () => {
    const tools = registry([-1, 1.08]);
    const o = orchestrator(tools);
    const outcome = await o.start('convert', 'demo', { plan: [{ tool: 'exchange_rate', input: { from: 'EUR', to: 'USD' } }] });
    expect(outcome).toMatchObject({ status: 'completed', outputs: { 'step-0': { rate: 1.08 } } });
    const journal = await o.store.readJournal(outcome.runId);
    expect(eventsOf(journal, 'tool_call_error').map((e) => [e.data.error.code, e.data.error.message, e.data.final])).toEqual([
      ['verification_failed', 'the result of exchange_rate failed its check: a rate is positive', false],
    ]);
    expect((await replay(journal, registry([-1, 1.08]))).ok).toBe(true);
  });

  it('send a result that keeps failing back to the model in an agent run', async () => {
    const model = scriptedModel([{ calls: [{ tool: 'exchange_rate', input: { from: 'EUR', to: 'XXX' } }] }, { text: 'No valid rate for XXX.' }], 'm1');
    const o = orchestrator(registry([0]), model);
    const outcome = await o.start('convert EUR to XXX', 'demo');
    expect(outcome).toMatchObject({ status: 'completed', outputs: { answer: 'No valid rate for XXX.' } });
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('verification_failed');
    const errors = eventsOf(await o.store.readJournal(outcome.runId), 'tool_call_error');
    expect(errors.map((e) => e.data.final)).toEqual([false, false, true]);
  });
});
