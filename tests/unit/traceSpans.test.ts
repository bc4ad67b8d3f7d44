import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InMemoryStore, Orchestrator, ToolRegistry, registerBuiltinTools, toTraceRecords } from '../../src/core/index.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { spansOf } from '../../src/web/dashboard/TraceView.tsx';

function orchestrator() {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  registry.register('demo', 'notify', {
    description: 'tell someone something',
    parameters: z.object({ to: z.string(), text: z.string() }),
    requiresApproval: true,
    handler: () => 'sent',
  });
  const store = new InMemoryStore();
  return new Orchestrator({ registry, store, ids: createSequentialIds('spans'), clock: steppingClock(1_000, 10), sleep: async () => undefined });
}

describe('trace spans of the dashboard', () => {
  it('name the tool of a step refused before its call', async () => {
    const o = orchestrator();
    const outcome = await o.start('add(a="two", b=3)', 'demo');
    expect(outcome.status).toBe('failed');
    const refused = spansOf(toTraceRecords(await o.store.readJournal(outcome.runId))).filter((span) => span.label.endsWith('refused'));
    expect(refused.map((span) => [span.label, span.kind, span.tool])).toEqual([['step-0 add refused', 'error', 'add']]);
  });

  it('draw an approval still waiting from its request to the last event, and only until it is decided', async () => {
    const o = orchestrator();
    const paused = await o.start('notify(to="ops", text="hi")', 'demo');
    expect(paused.status).toBe('paused');
    const waiting = spansOf(toTraceRecords(await o.store.readJournal(paused.runId))).filter((span) => span.kind === 'approval');
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({
      label: 'approval pending (notify)',
      tool: 'notify',
      input: { to: 'ops', text: 'hi' },
      extra: { pending: true },
    });
    expect(waiting[0]!.end).toBeGreaterThanOrEqual(waiting[0]!.start);

    await o.resolveApproval(paused.pendingApproval!.approvalId, { decision: 'approve', reason: 'fine', by: 'ops' });
    const decided = spansOf(toTraceRecords(await o.store.readJournal(paused.runId))).filter((span) => span.kind === 'approval');
    expect(decided.map((span) => span.label)).toEqual(['approval (approve)']);
  });
});
