import { InMemoryStore, Orchestrator, ToolRegistry, registerBuiltinTools, type JournalEvent } from '../../src/core/index.ts';

/**
 * A run as a killed process leaves it: the journal of `add 2 and 3 then multiply the result by
 * 4` in the demo profile, cut right after its second step's `tool_call_start`.
 */
export async function interruptedRun(): Promise<{ runId: string; journal: JournalEvent[] }> {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  const source = new Orchestrator({ registry, store: new InMemoryStore() });
  const done = await source.start('add 2 and 3 then multiply the result by 4', 'demo');
  const journal = await source.store.readJournal(done.runId);
  const cut = journal.findIndex((e) => e.type === 'tool_call_start' && e.data.stepId === 'step-1');
  return { runId: done.runId, journal: journal.slice(0, cut + 1) };
}

/** Poll `read` every 50 ms (at most `tries` times) until the run is no longer running; its last answer. */
export async function untilSettled<T extends { status: string }>(read: () => Promise<T>, tries = 200): Promise<T> {
  let body = await read();
  for (let i = 0; i < tries && (body.status === 'running' || body.status === 'paused'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    body = await read();
  }
  return body;
}
