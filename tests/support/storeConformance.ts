import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  auditHeadLog,
  ConflictError,
  HashingEmbedder,
  Orchestrator,
  RagIndex,
  RagLoader,
  RagRetriever,
  ToolRegistry,
  ValidationError,
  registerBuiltinTools,
  replay,
  verifyJournal,
  type AppendBatch,
  type HeadSigner,
  type HostStore,
  type JournalEvent,
  type RunSummary,
  type Store,
} from '../../src/core/index.ts';
import { sealEvent } from '../../src/core/testing.ts';

/** How the suite gets stores: a fresh one, and the same data opened again (a restart). */
export interface StoreFactory {
  open(): Promise<Store>;
  /** Close `store` and open the same data again; defaults to reusing `store`. */
  reopen?(store: Store): Promise<Store>;
  /** A second connection to `store`'s data, open at the same time (another process, tab or Worker); absent where there is no such thing. */
  connect?(store: Store): Promise<Store>;
  /** The key the stores sign their log of heads with; absent where they hold none. */
  signer?: HeadSigner;
}

function summary(events: readonly JournalEvent[], patch: Partial<RunSummary> = {}): RunSummary {
  const last = events.at(-1)!;
  return {
    runId: last.runId,
    traceId: `trace-${last.runId}`,
    profile: 'demo',
    goal: 'g',
    status: 'running',
    createdAt: events[0]!.at,
    updatedAt: last.at,
    head: { seq: last.seq, hash: last.hash },
    ...patch,
  };
}

function chain(runId: string, count: number, after?: JournalEvent): JournalEvent[] {
  const events: JournalEvent[] = [];
  let previous = after;
  for (let i = 0; i < count; i++) {
    const event = sealEvent(previous, runId, 'tool_call_complete', 1_000 + (previous ? previous.seq + 1 : 0), {
      stepId: `step-${i}`,
      output: { i, text: 'ünïcode ✓' },
    } as never);
    events.push(event);
    previous = event;
  }
  return events;
}

function batch(events: JournalEvent[], expected: JournalEvent | null, patch: Partial<AppendBatch> = {}): AppendBatch {
  return { runId: events[0]!.runId, events, expectedHead: expected ? { seq: expected.seq, hash: expected.hash } : null, run: summary(events), ...patch };
}

/** The behaviour every {@link Store} adapter must have. */
export function describeStoreConformance(name: string, factory: StoreFactory): void {
  describe(`Store conformance: ${name}`, () => {
    it('appends atomically and reads journals back exactly', async () => {
      const store = await factory.open();
      const first = chain('r1', 3);
      await store.append(batch(first, null));
      const more = chain('r1', 2, first.at(-1));
      await store.append(batch(more, first.at(-1)!));
      const journal = await store.readJournal('r1');
      expect(journal).toEqual([...first, ...more]);
      expect(verifyJournal(journal).ok).toBe(true);
      expect(await store.readJournal('r1', 3)).toEqual(more);
      expect(await store.readJournal('nobody')).toEqual([]);
      expect(await store.getRun('r1')).toMatchObject({ runId: 'r1', head: { seq: 4 } });
      await store.close?.();
    });

    it('refuses a stale head, a forked chain, a duplicate run and an empty batch, writing nothing', async () => {
      const store = await factory.open();
      const first = chain('r2', 2);
      await store.append(batch(first, null, { profileUsage: { profile: 'demo', delta: { cost: 1, calls: 1, tokens: 0 } } }));
      const stale = chain('r2', 1, first[0]);
      await expect(store.append(batch(stale, first[0]!, { profileUsage: { profile: 'demo', delta: { cost: 5, calls: 5, tokens: 5 } } }))).rejects.toMatchObject(
        { code: 'head_mismatch' },
      );
      await expect(store.append(batch(chain('r2', 1), null))).rejects.toBeInstanceOf(ConflictError);
      const forged = { ...chain('r2', 1, first.at(-1))[0]!, prev: first[0]!.hash };
      await expect(store.append(batch([forged], first.at(-1)!))).rejects.toBeInstanceOf(ValidationError);
      await expect(store.append({ ...batch(first, null), events: [] })).rejects.toMatchObject({ code: 'empty_append' });
      expect(await store.readJournal('r2')).toEqual(first);
      expect(await store.getProfileUsage('demo')).toEqual({ cost: 1, calls: 1, tokens: 0 });
      await store.close?.();
    });

    it('lets exactly one of two concurrent writers with the same head win', async () => {
      const store = await factory.open();
      const first = chain('r3', 1);
      await store.append(batch(first, null));
      const a = chain('r3', 1, first[0]);
      const b = [sealEvent(first[0], 'r3', 'run_cancelled', 5, { reason: 'other writer' })];
      const results = await Promise.allSettled([store.append(batch(a, first[0]!)), store.append(batch(b, first[0]!))]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(await store.readJournal('r3')).toHaveLength(2);
      // Many runs at once all land.
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.append(batch(chain(`many-${i}`, 3), null))));
      expect((await store.listRuns()).filter((r) => r.runId.startsWith('many-'))).toHaveLength(20);
      await store.close?.();
    });

    it("never lets one run take over another run's approval, writing nothing of the refused batch", async () => {
      const store = await factory.open();
      const approval = (runId: string, profile: string) => ({
        approvalId: 'ap-shared',
        runId,
        traceId: `trace-${runId}`,
        profile,
        stepId: 'step-0',
        tool: 'transfer',
        args: { amount: 1 },
        argsHash: 'h',
        reason: 'needs a human',
        status: 'pending' as const,
        requestedAt: 1_000,
      });
      const victim = chain('victim', 1);
      await store.append(batch(victim, null, { run: summary(victim, { status: 'paused', profile: 'alice' }), approvals: [approval('victim', 'alice')] }));
      // Another run (as an imported, forged journal would) reuses the id: refused, nothing written.
      const thief = chain('thief', 2);
      await expect(
        store.append(batch(thief, null, { run: summary(thief, { profile: 'mallory' }), approvals: [approval('thief', 'mallory')] })),
      ).rejects.toMatchObject({
        code: 'approval_id_taken',
      });
      expect(await store.readJournal('thief')).toEqual([]);
      expect(await store.getRun('thief')).toBeUndefined();
      expect(await store.getApproval('ap-shared')).toMatchObject({ runId: 'victim', profile: 'alice', status: 'pending' });
      expect((await store.listApprovals({ profile: 'alice' })).map((a) => a.approvalId)).toEqual(['ap-shared']);
      // A batch may only carry approvals of its own run and profile.
      await expect(
        store.append(batch(thief, null, { run: summary(thief, { profile: 'mallory' }), approvals: [approval('victim', 'alice')] })),
      ).rejects.toMatchObject({
        code: 'approval_outside_run',
      });
      expect(await store.getRun('thief')).toBeUndefined();
      // The run that owns the approval still updates it.
      const more = chain('victim', 1, victim.at(-1));
      await store.append(
        batch(more, victim.at(-1)!, {
          run: summary([...victim, ...more], { profile: 'alice' }),
          approvals: [{ ...approval('victim', 'alice'), status: 'approved' }],
        }),
      );
      expect(await store.getApproval('ap-shared')).toMatchObject({ runId: 'victim', status: 'approved' });
    });

    it('lists runs and approvals by filter, and adds up profile spending', async () => {
      const store = await factory.open();
      const runs = [
        { id: 'a', status: 'running', profile: 'p1', trace: 't1' },
        { id: 'b', status: 'paused', profile: 'p1', trace: 't2' },
        { id: 'c', status: 'completed', profile: 'p2', trace: 't1' },
      ] as const;
      for (const [i, r] of runs.entries()) {
        const events = chain(r.id, 1).map((e) => sealEvent(undefined, r.id, e.type, 1_000 + i, e.data));
        await store.append(
          batch(events, null, {
            run: summary(events, { status: r.status, profile: r.profile, traceId: r.trace, createdAt: 1_000 + i }),
            approvals:
              r.status === 'paused'
                ? [
                    {
                      approvalId: `ap-${r.id}`,
                      runId: r.id,
                      traceId: r.trace,
                      profile: r.profile,
                      stepId: 'step-0',
                      tool: 'x',
                      args: { n: 1 },
                      argsHash: 'h',
                      reason: 'needs a human',
                      status: 'pending',
                      requestedAt: 5,
                    },
                  ]
                : [],
            profileUsage: { profile: r.profile, delta: { cost: 0.5, calls: 1, tokens: 10 } },
          }),
        );
      }
      expect((await store.listRuns()).map((r) => r.runId)).toEqual(['c', 'b', 'a']);
      expect((await store.listRuns({ status: 'paused' })).map((r) => r.runId)).toEqual(['b']);
      expect((await store.listRuns({ profile: 'p1' })).map((r) => r.runId)).toEqual(['b', 'a']);
      expect((await store.listRuns({ traceId: 't1' })).map((r) => r.runId)).toEqual(['c', 'a']);
      expect((await store.listRuns({ limit: 1 })).map((r) => r.runId)).toEqual(['c']);
      expect(await store.listApprovals({ status: 'pending' })).toMatchObject([{ approvalId: 'ap-b', args: { n: 1 } }]);
      expect(await store.listApprovals({ runId: 'a' })).toEqual([]);
      expect(await store.getApproval('ap-b')).toMatchObject({ status: 'pending', profile: 'p1' });
      expect(await store.getProfileUsage('p1')).toEqual({ cost: 1, calls: 2, tokens: 20 });
      expect(await store.getProfileUsage('nobody')).toEqual({ cost: 0, calls: 0, tokens: 0 });
      await store.close?.();
    });

    it('logs the appends that start a run or bring it to rest in the same write, folded and signed at each checkpoint, and nothing of a refused batch', async () => {
      const store = await factory.open();
      const check = factory.signer
        ? (head: { size: number; hash: string }, sig: { keyId: string; sig: string }) => factory.signer!.verifyLog(head, sig)
        : undefined;
      const a = chain('log-a', 2);
      await store.append(batch(a, null, { run: summary(a, { profile: 'p1' }) }));
      const b = chain('log-b', 1);
      await store.append(batch(b, null, { run: summary(b, { profile: 'p2' }) }));
      // Refused: a stale head writes no entry.
      await expect(store.append(batch(chain('log-a', 1, a[0]), a[0]!))).rejects.toMatchObject({ code: 'head_mismatch' });
      let log = await store.readHeadLog();
      expect(log.entries.map((e) => [e.index, e.runId, e.profile, e.seq, e.hash])).toEqual([
        [0, 'log-a', 'p1', 1, a[1]!.hash],
        [1, 'log-b', 'p2', 0, b[0]!.hash],
      ]);
      // Nothing has come to rest: no checkpoint yet, and no signature is missing.
      expect(log.signed).toBeUndefined();
      let runs = await store.listRuns();
      expect(auditHeadLog(log, runs, check)).toMatchObject({ ok: true, size: 2, signedSize: 0, findings: [] });
      // The appends of a running run between its start and its rest add no entry: the log pins it from below.
      const step = chain('log-a', 1, a.at(-1));
      await store.append(batch(step, a.at(-1)!, { run: summary([...a, ...step], { profile: 'p1' }) }));
      expect((await store.readHeadLog()).entries).toHaveLength(2);
      expect(auditHeadLog(await store.readHeadLog(), await store.listRuns(), check)).toMatchObject({ ok: true, findings: [] });
      // A run comes to rest: the log's head is signed in the same write, covering every entry.
      const done = chain('log-a', 1, step.at(-1));
      await store.append(batch(done, step.at(-1)!, { run: summary([...a, ...step, ...done], { profile: 'p1', status: 'completed' }) }));
      // Runs appending at once each get their entry, in some order, folded into one chain.
      await Promise.all(Array.from({ length: 5 }, (_, i) => store.append(batch(chain(`log-many-${i}`, 2), null))));
      log = await store.readHeadLog();
      expect(log.entries).toHaveLength(8);
      expect(log.entries[2]).toMatchObject({ runId: 'log-a', seq: 3, hash: done[0]!.hash, rest: true, final: true });
      expect(
        log.entries
          .slice(3)
          .map((e) => e.runId)
          .sort(),
      ).toEqual(Array.from({ length: 5 }, (_, i) => `log-many-${i}`));
      runs = await store.listRuns();
      const audit = auditHeadLog(log, runs, check);
      expect(audit).toMatchObject({ ok: true, size: 8, findings: [], predating: 0 });
      if (factory.signer) {
        expect(log.signed).toMatchObject({ size: 3, hash: log.entries[2]!.logHash, keyId: factory.signer.keyId });
        expect(audit).toMatchObject({ signature: 'signed', signedSize: 3 });
        // The same log against a store without one of its runs, or with a run rolled back.
        const gone = auditHeadLog(
          log,
          runs.filter((r) => r.runId !== 'log-a'),
          check,
        );
        expect(gone.findings).toMatchObject([{ runId: 'log-a', kind: 'missing', signed: true }]);
        const back = runs.map((r) => (r.runId === 'log-a' ? { ...r, head: { seq: 1, hash: a[1]!.hash } } : r));
        expect(auditHeadLog(log, back, check).findings).toMatchObject([{ runId: 'log-a', kind: 'head_differs', signed: true }]);
      } else {
        expect(log.signed).toBeUndefined();
      }
      // The log survives a restart, and a second connection writes on after it.
      const again = factory.reopen ? await factory.reopen(store) : store;
      const more = chain('log-b', 1, b[0]);
      await again.append(batch(more, b[0]!, { run: summary([...b, ...more], { profile: 'p2', status: 'paused' }) }));
      const other = factory.connect ? await factory.connect(again) : undefined;
      if (other) await other.append(batch(chain('log-other', 1), null, { run: summary(chain('log-other', 1), { status: 'failed' }) }));
      // The first connection writes on after the other's entry, never over it.
      const last = chain('log-b', 1, more[0]);
      await again.append(batch(last, more[0]!, { run: summary([...b, ...more, ...last], { profile: 'p2', status: 'completed' }) }));
      log = await again.readHeadLog();
      expect(log.entries.map((e) => e.index)).toEqual(Array.from({ length: other ? 11 : 10 }, (_, i) => i));
      expect(log.entries.at(-1)).toMatchObject({ runId: 'log-b', seq: 2, rest: true });
      expect(auditHeadLog(log, await again.listRuns(), check)).toMatchObject({ ok: true, findings: [] });
      if (factory.signer) expect(log.signed?.size).toBe(log.entries.length);
      await other?.close?.();
      await again.close?.();
    });

    it.skipIf(!factory.connect)('lets two connections take turns on one run, each refusing what the other made stale', async () => {
      const a = await factory.open();
      const b = await factory.connect!(a);
      const first = chain('shared', 2);
      await a.append(batch(first, null, { profileUsage: { profile: 'demo', delta: { cost: 1, calls: 1, tokens: 1 } } }));
      // b never saw the run: it reads the head instead of trusting that the run is new.
      await expect(b.append(batch(chain('shared', 1), null))).rejects.toMatchObject({ code: 'head_mismatch' });
      const fromB = chain('shared', 2, first.at(-1));
      await b.append(batch(fromB, first.at(-1)!, { profileUsage: { profile: 'demo', delta: { cost: 2, calls: 1, tokens: 1 } } }));
      // a's remembered head is stale now: the head on disk decides, both ways.
      await expect(a.append(batch(chain('shared', 1, first.at(-1)), first.at(-1)!))).rejects.toMatchObject({ code: 'head_mismatch' });
      const fromA = chain('shared', 1, fromB.at(-1));
      await a.append(batch(fromA, fromB.at(-1)!));
      expect(await b.readJournal('shared')).toEqual([...first, ...fromB, ...fromA]);
      expect(verifyJournal(await a.readJournal('shared')).ok).toBe(true);
      expect(await b.getRun('shared')).toMatchObject({ head: { seq: 4, hash: fromA.at(-1)!.hash } });
      expect(await a.getProfileUsage('demo')).toEqual({ cost: 3, calls: 2, tokens: 2 });
      await b.close?.();
      await a.close?.();
    });

    it('carries a paused orchestrated run across a restart, then verifies and replays it', async () => {
      const registry = new ToolRegistry();
      registerBuiltinTools(registry);
      const sent: number[] = [];
      registry.register('demo', 'pay', {
        description: 'pay an invoice',
        parameters: z.object({ amount: z.number() }),
        requiresApproval: true,
        handler: ({ amount }) => (sent.push(amount), `paid ${amount}`),
      });
      let store = await factory.open();
      const paused = await new Orchestrator({ registry, store }).start('add 1 and 2 then pay(amount=3)', 'demo');
      expect(paused.status).toBe('paused');
      store = factory.reopen ? await factory.reopen(store) : store;
      const [pending] = await store.listApprovals({ status: 'pending' });
      const done = await new Orchestrator({ registry, store }).resolveApproval(pending!.approvalId, { decision: 'approve', by: 'ada' });
      expect(done).toMatchObject({ status: 'completed', outputs: { 'step-0': 'paid 3' } });
      expect(sent).toEqual([3]);
      const journal = await store.readJournal(done.runId);
      expect(verifyJournal(journal).ok).toBe(true);
      expect((await replay(journal, registry)).ok).toBe(true);
      expect(await store.getRun(done.runId)).toMatchObject({ status: 'completed', head: done.head });
      await store.close?.();
    });
  });
}

/** A store that also keeps facts and vectors: every host's {@link HostStore}. */
export type FullStore = HostStore;

/** Facts, persisted vectors and RAG over a {@link HostStore}, across a reopen. */
export function describeMemoryConformance(name: string, factory: { open(): Promise<FullStore>; reopen(store: FullStore): Promise<FullStore> }): void {
  describe(`Memory conformance: ${name}`, () => {
    it('keeps facts per profile and namespace', async () => {
      const store = await factory.open();
      const fact = (id: string, profile: string, namespace: string, at: number) => ({
        id,
        profile,
        namespace,
        value: { id },
        at,
        timestamp: new Date(at).toISOString(),
      });
      await store.putFacts([fact('f1', 'p1', 'notes', 1), fact('f2', 'p1', 'notes', 2), fact('f3', 'p1', 'prefs', 3), fact('f4', 'p2', 'notes', 4)]);
      expect((await store.queryFacts('p1', { namespace: 'notes' })).map((f) => f.id)).toEqual(['f2', 'f1']);
      expect((await store.queryFacts('p2')).map((f) => f.id)).toEqual(['f4']);
      expect(await store.namespaces('p1')).toEqual(['notes', 'prefs']);
      expect(await store.deleteFacts('p1', 'notes')).toBe(2);
      expect((await store.queryFacts('p1')).map((f) => f.id)).toEqual(['f3']);
      await store.close?.();
    });

    it('persists vectors as Float32 and reloads them without re-embedding; RAG works after a restart', async () => {
      const embedder = new HashingEmbedder({ dimension: 64 });
      let store = await factory.open();
      let vectors = store.vectors(64);
      await vectors.connect();
      const loader = new RagLoader(new RagIndex(vectors, embedder), { size: 200, overlap: 40 });
      await loader.ingest('docs', [
        { path: 'bees.md', text: 'Varroa mites weaken honey bee colonies. Treat hives in late summer.' },
        { path: 'tea.txt', text: 'Oolong tea can be steeped several times at ninety degrees.' },
      ]);
      await vectors.upsert('other', [{ id: 'secret', vector: embedder.embed('varroa mites secret'), metadata: { profile: 'other' } }]);
      const before = await vectors.list('docs', { vectors: true });
      store = await factory.reopen(store);
      vectors = store.vectors(64);
      await vectors.connect();
      const after = await vectors.list('docs', { vectors: true });
      expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
      after.forEach((r, i) => expect(Array.from(r.vector)).toEqual(Array.from(before[i]!.vector)));
      let embeds = 0;
      const counting = Object.assign(Object.create(embedder) as HashingEmbedder, { embed: (text: string) => (embeds++, embedder.embed(text)) });
      const retriever = new RagRetriever(new RagIndex(vectors, counting));
      const hits = await retriever.search('docs', 'varroa mites in hives', { k: 2 });
      expect(hits[0]).toMatchObject({ path: 'bees.md' });
      expect(hits.every((h) => h.path !== 'secret')).toBe(true);
      expect(embeds).toBe(1);
      expect(await vectors.count('other')).toBe(1);
      expect(await vectors.delete('docs', ['tea.txt#0'])).toBe(1);
      store = await factory.reopen(store);
      expect(await store.vectors(64).count('docs')).toBe(1);
      await store.close?.();
    });
  });
}
