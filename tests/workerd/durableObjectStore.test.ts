import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unstable_startWorker } from 'wrangler';
import { type AppendBatch, type JournalEvent } from '../../src/core/index.ts';
import { createHeadSigner, generateSigningKey } from '../../src/core/signing.ts';
import { sealEvent } from '../../src/core/testing.ts';
import { describeMemoryConformance, describeStoreConformance } from '../support/storeConformance.ts';
import { remoteStore, type RemoteStore } from './remoteStore.ts';

// The store and memory conformance suites against the Durable Object store running in real
// workerd (through wrangler), its objects persisted on disk so a reopen is a real restart.
const persist = mkdtempSync(join(tmpdir(), 'cugar-do-'));
let worker: Awaited<ReturnType<typeof unstable_startWorker>> | undefined;
let url: URL | undefined;
// The Worker's key, as `wrangler secret put CUGAR_SIGNING_KEY` would give it: the directory signs its log with it.
const signingKey = generateSigningKey();

async function start(): Promise<void> {
  worker = await unstable_startWorker({
    config: new URL('../../wrangler.jsonc', import.meta.url).pathname,
    entrypoint: new URL('./storeWorker.ts', import.meta.url).pathname,
    bindings: { CUGAR_SIGNING_KEY: { type: 'secret_text', value: signingKey } },
    dev: { inspector: false, server: { hostname: '127.0.0.1', port: 0 }, persist, watch: false, logLevel: 'warn' },
  });
  await worker.ready;
  url = await worker.url;
}

async function post(body: string): Promise<string> {
  const response = await fetch(url!, { method: 'POST', body });
  return response.text();
}

let n = 0;
const factory = {
  open: async (): Promise<RemoteStore> => {
    if (!worker) await start();
    return remoteStore(`store-${Date.now()}-${n++}`, post);
  },
  reopen: async (store: RemoteStore): Promise<RemoteStore> => {
    await worker!.dispose();
    await start();
    return remoteStore(store.name, post);
  },
};

afterAll(async () => {
  await worker?.dispose();
  rmSync(persist, { recursive: true, force: true });
});

describeStoreConformance('Durable Objects in workerd', {
  open: factory.open,
  reopen: (store) => factory.reopen(store as RemoteStore),
  // Another Worker isolate: a store of its own over the same objects.
  connect: async (store) => remoteStore((store as RemoteStore).name, post),
  signer: createHeadSigner(signingKey),
});
describeMemoryConformance('Durable Objects in workerd', { open: factory.open, reopen: (store) => factory.reopen(store as RemoteStore) });

function batch(runId: string, after: JournalEvent | undefined, status: 'running' | 'completed', cost: number): AppendBatch {
  const event = sealEvent(after, runId, 'stage', 10 + (after ? after.seq + 1 : 0), { stage: status === 'running' ? 'initialize' : 'complete' });
  const head = { seq: event.seq, hash: event.hash };
  return {
    runId,
    events: [event],
    expectedHead: after ? { seq: after.seq, hash: after.hash } : null,
    run: { runId, traceId: 't', profile: 'p', goal: 'g', status, createdAt: 10, updatedAt: event.at, head },
    profileUsage: { profile: 'p', delta: { cost, calls: 1, tokens: 0 } },
  };
}

describe('DurableObjectStore append', () => {
  it('never lets a reader see a write whose writer died before the run object wrote it, nor lets that write land later', async () => {
    const store = await factory.open();
    const first = batch('r', undefined, 'running', 1);
    await store.append(first);
    const second = batch('r', first.events[0], 'completed', 2);
    expect(await store.crash(second, 'before-write', false)).toBe(false);
    // Staged moments ago: the writer may still be on its way, so nothing is fenced or shown.
    expect(await store.getRun('r')).toMatchObject({ status: 'running', head: { seq: 0 } });
    expect(await store.crash(second, 'before-write', true)).toBe(false);
    expect(await store.listRuns({ profile: 'p' })).toMatchObject([{ runId: 'r', status: 'running' }]);
    expect(await store.getProfileUsage('p')).toEqual({ cost: 1, calls: 1, tokens: 0 });
    // A writer a reader gave up on cannot land afterwards: what readers saw stays true.
    expect(await store.crash(second, 'late-write', true)).toBe(false);
    expect(await store.readJournal('r')).toEqual(first.events);
    // A new writer of the same events is not the attempt that was fenced off: it lands, counted once.
    await store.append(second);
    expect(await store.getRun('r')).toMatchObject({ status: 'completed', head: { seq: 1 } });
    expect(await store.getProfileUsage('p')).toEqual({ cost: 3, calls: 2, tokens: 0 });
    expect(await store.readJournal('r')).toEqual([...first.events, ...second.events]);
  });

  it('shows a write whose writer died after the run object wrote it, counting its spending once', async () => {
    const store = await factory.open();
    const first = batch('q', undefined, 'running', 1);
    expect(await store.crash(first, 'before-confirm', false)).toBe(true);
    expect(await store.listRuns()).toMatchObject([{ runId: 'q', status: 'running', head: { seq: 0 } }]);
    expect(await store.getProfileUsage('p')).toEqual({ cost: 1, calls: 1, tokens: 0 });
    const second = batch('q', first.events[0], 'completed', 2);
    expect(await store.crash(second, 'before-confirm', true)).toBe(true);
    await expect(store.append(second)).rejects.toMatchObject({ code: 'head_mismatch' });
    expect(await store.getRun('q')).toMatchObject({ status: 'completed', head: { seq: 1 } });
    expect(await store.getProfileUsage('p')).toEqual({ cost: 3, calls: 2, tokens: 0 });
    expect(await store.getProfileUsage('p')).toEqual({ cost: 3, calls: 2, tokens: 0 });
  });
});
