import { describe, expect, it } from 'vitest';
import {
  HeadLogSchema,
  InMemoryStore,
  auditHeadLog,
  verifyStoreHeads,
  type AppendBatch,
  type HeadLog,
  type JournalEvent,
  type RunSummary,
} from '../../src/core/index.ts';
import { createHeadSigner, generateSigningKey, verifyHeadSignature, verifyLogHeadSignature } from '../../src/core/signing.ts';
import { sealEvent } from '../../src/core/testing.ts';

// The log of heads and its verification with a public key alone, in Node and in Chromium.
const signer = createHeadSigner(generateSigningKey());
const publicKey = signer.publicKey;
const checks = {
  head: (runId: string, head: { seq: number; hash: string }, signature: { keyId: string; sig: string }) =>
    verifyHeadSignature(runId, head, signature, publicKey),
  log: (head: { size: number; hash: string }, signature: { keyId: string; sig: string }) => verifyLogHeadSignature(head, signature, publicKey),
};

function append(runId: string, after: JournalEvent | undefined, status: RunSummary['status']): AppendBatch & { event: JournalEvent } {
  const event = sealEvent(after, runId, 'stage', 1 + (after ? after.seq + 1 : 0), { stage: 'initialize' });
  const head = { seq: event.seq, hash: event.hash };
  const run: RunSummary = { runId, traceId: 't', profile: 'demo', goal: 'g', status, createdAt: 1, updatedAt: 1, head };
  if (status !== 'running') run.signature = signer.sign(runId, head);
  return { runId, events: [event], expectedHead: after ? { seq: after.seq, hash: after.hash } : null, run, event };
}

async function store(): Promise<{ store: InMemoryStore; later: JournalEvent }> {
  const s = new InMemoryStore({ signer });
  const a = append('a', undefined, 'running');
  await s.append(a);
  const done = append('a', a.event, 'completed');
  await s.append(done);
  await s.append(append('b', undefined, 'paused'));
  // A run still running after the last checkpoint: the log's unsigned tail.
  const later = append('c', undefined, 'running');
  await s.append(later);
  return { store: s, later: later.event };
}

const heads = async (s: InMemoryStore) => ({ log: await s.readHeadLog(), runs: await s.listRuns() });

describe('Verifying a store with its public key alone', () => {
  it('finds nothing wrong in an untouched store, and serializes its log through the schema', async () => {
    const { store: s } = await store();
    const result = verifyStoreHeads(await heads(s), checks);
    expect(result).toMatchObject({ ok: true, log: { ok: true, signature: 'signed', size: 4, signedSize: 3, findings: [] } });
    expect(result.runs.map((r) => [r.runId, r.signature])).toEqual(
      expect.arrayContaining([
        ['a', 'signed'],
        ['b', 'signed'],
        ['c', 'unsigned'],
      ]),
    );
    const log = await s.readHeadLog();
    expect(HeadLogSchema.parse(JSON.parse(JSON.stringify(log)))).toEqual(log);
  });

  it('reports a deleted run, a rolled-back run, a planted run and a run head signed by another key', async () => {
    const { store: s } = await store();
    const { log, runs } = await heads(s);
    const a = runs.find((r) => r.runId === 'a')!;
    const journalA = await s.readJournal('a');
    const other = createHeadSigner(generateSigningKey());
    const planted = append('planted', undefined, 'running').run;
    const tampered = [
      { ...a, status: 'running' as const, head: { seq: 0, hash: journalA[0]!.hash }, signature: undefined },
      { ...runs.find((r) => r.runId === 'c')!, signature: other.sign('c', runs.find((r) => r.runId === 'c')!.head) },
      planted,
    ].map(({ signature, ...run }) => (signature ? { ...run, signature } : run));
    const result = verifyStoreHeads({ log, runs: tampered }, checks);
    expect(result.ok).toBe(false);
    const by = (id: string) => result.runs.find((r) => r.runId === id);
    expect(by('a')).toMatchObject({ ok: false, reason: expect.stringContaining('rolled back to seq 0') });
    expect(by('b')).toMatchObject({ ok: false, reason: expect.stringContaining('deleted') });
    expect(by('c')).toMatchObject({ ok: false, signature: 'bad' });
    expect(by('planted')).toMatchObject({ ok: false, reason: expect.stringContaining('not in the log') });
  });

  it('calls a log bad when an entry is changed, refolded, signed by another key or cut below its signature, and unsigned when its signature is dropped', async () => {
    const { store: s } = await store();
    const { log, runs } = await heads(s);
    const changed: HeadLog = { ...log, entries: log.entries.map((e, i) => (i === 1 ? { ...e, seq: e.seq + 1 } : e)) };
    expect(auditHeadLog(changed, runs, checks.log)).toMatchObject({ ok: false, problem: expect.stringContaining('broken at entry 1') });
    const resigned: HeadLog = { ...log, signed: { ...log.signed!, ...createHeadSigner(generateSigningKey()).signLog(log.signed!) } };
    expect(auditHeadLog(resigned, runs, checks.log)).toMatchObject({ ok: false, signature: 'bad', problem: expect.stringContaining('not signed by this key') });
    const cut: HeadLog = { ...log, entries: log.entries.slice(0, 2) };
    expect(auditHeadLog(cut, runs, checks.log)).toMatchObject({ ok: false, signature: 'bad', problem: expect.stringContaining('rewritten') });
    const { signed: _dropped, ...bare } = log;
    expect(auditHeadLog(bare, runs, checks.log)).toMatchObject({ ok: false, signature: 'unsigned', problem: expect.stringContaining('last checkpoint') });
    // A head seen before must stay a prefix: a log put back to an older copy, or forked, no longer extends it.
    const seen = { size: log.entries.length, hash: log.entries.at(-1)!.logHash };
    expect(auditHeadLog(log, runs, checks.log, seen)).toMatchObject({ ok: true });
    expect(auditHeadLog({ entries: cut.entries }, runs, undefined, seen)).toMatchObject({ ok: false, problem: expect.stringContaining('does not extend') });
    expect(auditHeadLog(log, runs, checks.log, { ...seen, hash: log.entries[0]!.logHash })).toMatchObject({ ok: false });
    // Without a key nothing is claimed about the signature, and the fold is still checked.
    expect(auditHeadLog(log, runs)).toMatchObject({ ok: true, signature: 'unchecked' });
    expect(auditHeadLog(changed, runs)).toMatchObject({ ok: false });
  });

  it('pins a run at rest to its last entry exactly, a finished run for good, and a running run from below, through its journal', async () => {
    const s = new InMemoryStore({ signer });
    const first = append('r', undefined, 'paused');
    await s.append(first);
    const log = await s.readHeadLog();
    const [run] = await s.listRuns();
    const resumed = sealEvent(first.event, 'r', 'run_resumed', 5, { from: 'paused' });
    const later = sealEvent(resumed, 'r', 'stage', 6, { stage: 'execute' });
    const running = { ...run!, status: 'running' as const, head: { seq: later.seq, hash: later.hash } };
    const journal = [first.event, resumed, later];
    // Resumed after its pause and running on: fine, as long as its journal passes through the paused head.
    expect(auditHeadLog(log, [{ ...running, hashAt: (seq: number) => journal[seq]?.hash }], checks.log)).toMatchObject({ ok: true, findings: [] });
    expect(auditHeadLog(log, [running], checks.log)).toMatchObject({ ok: true });
    const forged = sealEvent(undefined, 'r', 'stage', 1, { stage: 'plan' });
    expect(auditHeadLog(log, [{ ...running, hashAt: () => forged.hash }], checks.log).findings).toMatchObject([
      { kind: 'head_differs', reason: expect.stringContaining('no longer passes through') },
    ]);
    // At rest somewhere the log never saw: every append that brings a run to rest is logged.
    expect(auditHeadLog(log, [{ ...running, status: 'paused' }], checks.log).findings).toMatchObject([
      { kind: 'head_differs', reason: expect.stringContaining('a head the log never recorded') },
    ]);
    // A finished run never moves again.
    const done = append('d', undefined, 'completed');
    await s.append(done);
    const finished = (await s.listRuns()).find((r) => r.runId === 'd')!;
    const reopened = { ...finished, status: 'running' as const, head: { seq: 1, hash: sealEvent(done.event, 'd', 'stage', 9, { stage: 'execute' }).hash } };
    expect(auditHeadLog(await s.readHeadLog(), [run!, reopened], checks.log).findings).toMatchObject([
      { runId: 'd', kind: 'head_differs', reason: expect.stringContaining('moved on after it finished') },
    ]);
  });

  it('counts the runs of a store whose log has not started as predating it, with no findings', () => {
    const event = sealEvent(undefined, 'old', 'stage', 1, { stage: 'initialize' });
    const run = { runId: 'old', profile: 'demo', head: { seq: 0, hash: event.hash } };
    expect(auditHeadLog({ entries: [] }, [run], checks.log)).toEqual({
      ok: true,
      size: 0,
      signedSize: 0,
      signature: 'unsigned',
      predating: 1,
      pruned: [],
      findings: [],
    });
  });
});
