import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InMemoryStore, Orchestrator, ToolRegistry, registerBuiltinTools, toTraceRecords } from '../../src/core/index.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { spanTree, spansOf } from '../../src/web/dashboard/spans.ts';

describe('the span tree', () => {
  it('nests each tool call, approval and budget event in the stage it happened in, and loses none', async () => {
    const registry = new ToolRegistry();
    registerBuiltinTools(registry);
    registry.register('demo', 'notify', { description: 'tell someone', parameters: z.object({ to: z.string() }), requiresApproval: true, handler: () => 'ok' });
    const store = new InMemoryStore();
    const o = new Orchestrator({ registry, store, ids: createSequentialIds('tree'), clock: steppingClock(1_000, 3), sleep: async () => undefined });
    const paused = await o.start('add(a=2, b=3); notify(to="ops")', 'demo');
    await o.resolveApproval(paused.pendingApproval!.approvalId, { decision: 'approve', reason: 'ok', by: 'me' });
    const spans = spansOf(toTraceRecords(await store.readJournal(paused.runId)));
    const tree = spanTree(spans);
    const flat = (nodes: typeof tree): number => nodes.reduce((n, node) => n + 1 + flat(node.children), 0);
    expect(flat(tree)).toBe(spans.length);
    const execute = tree.filter((node) => node.span.label === 'stage execute');
    const inExecute = execute.flatMap((node) => node.children.map((child) => child.span.label));
    expect(inExecute).toEqual(expect.arrayContaining(['step-0 add #1', 'step-1 notify #1', 'approval (approve)']));
    expect(tree.every((node) => node.span.kind === 'stage' || node.children.length === 0)).toBe(true);
  });
});
