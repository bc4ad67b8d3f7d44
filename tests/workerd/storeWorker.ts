import { toCugarError, type AppendBatch } from '../../src/core/index.ts';
import { DurableObjectStore, STAGE_GRACE_MS, type DurableObjectBindings, type StagedEntry } from '../../src/edge/durableObjectStore.ts';
import { decodeCall, encodeCall, type StoreCall } from './storeCall.ts';

// The Durable Object classes, bound by wrangler.jsonc's class names to this test entry's exports.
export { DirectoryObject, ProfileObject, RunObject } from '../../src/edge/durableObjectStore.ts';

/** How a writer died: before its run object wrote the events, after, or so slowly that a reader gave up on it before its write arrived. */
export type Crash = 'before-write' | 'before-confirm' | 'late-write';

/**
 * Write as a dying writer would have: staged only, or written without the confirmation, or
 * (`late-write`) staged, given up on by a reader, then written after all. Answers whether the
 * run object took the write.
 */
async function crash(env: DurableObjectBindings, name: string, batch: AppendBatch, at: Crash, staleFor: number): Promise<boolean> {
  const directory = env.DIRECTORY.get(env.DIRECTORY.idFromName(`${name}/directory`));
  const last = batch.events.at(-1)!;
  const attempt = crypto.randomUUID();
  const entry: StagedEntry = {
    attempt,
    object: `${name}/${batch.runId}`,
    runId: batch.runId,
    seq: last.seq,
    hash: last.hash,
    run: batch.run,
    approvals: [...(batch.approvals ?? [])],
    ...(batch.profileUsage ? { usage: batch.profileUsage } : {}),
    stagedAt: Date.now() - staleFor,
  };
  await directory.stage(entry);
  if (at === 'before-write') return false;
  if (at === 'late-write') await directory.listRuns({});
  return (await env.RUNS.get(env.RUNS.idFromName(`${name}/${batch.runId}`)).append(batch, attempt)).ok;
}

/**
 * A test entry for the Durable Object store: each POST names a store, a method and its
 * arguments, and answers the method's value or its error as a record.
 */
export default {
  async fetch(request: Request, env: DurableObjectBindings): Promise<Response> {
    const call = decodeCall(await request.text()) as StoreCall;
    const store = new DurableObjectStore(env, { name: call.name });
    try {
      let value: unknown;
      if (call.method === 'crash') {
        const [batch, at, stale] = call.args as [AppendBatch, Crash, boolean];
        value = await crash(env, call.name, batch, at, stale ? 2 * STAGE_GRACE_MS : 0);
      } else if (call.method.startsWith('vectors.')) {
        const [dimension, ...args] = call.args as [number, ...unknown[]];
        const backend = store.vectors(dimension) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
        value = await backend[call.method.slice('vectors.'.length)]!(...args);
      } else {
        value = await (store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[call.method]!(...call.args);
      }
      return new Response(encodeCall({ ok: true, value }));
    } catch (error) {
      return new Response(encodeCall({ ok: false, error: toCugarError(error).toJSON() }));
    }
  },
};
