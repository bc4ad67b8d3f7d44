import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { auditHeadLog, type HeadLog, type LogHead } from '../../src/core/index.ts';
import { logHeadAfter, nextLogEntry } from '../../src/core/journal/headLog.ts';
import { createHeadSigner, generateSigningKey } from '../../src/core/signing.ts';
import { parseTokenMap } from '../../src/api/tokens.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { pruneOnce, startRetention } from '../../src/edge/retention.ts';
import type { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { ADMIN, TOKENS, WAIT, caller, type Call } from '../support/apiConformance.ts';

// Retention on the Node host: journals of finished runs older than the limit are deleted, a
// signed `pruned` record stays in the log of heads, and audits tell pruned runs from deleted ones.

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const DAY = 86_400_000;
const later = (days: number) => () => Date.now() + days * DAY;

interface Audit {
  ok: boolean;
  runs: Array<{ runId: string; ok: boolean; reason?: string }>;
  log: { ok: boolean; signature: string; pruned?: number };
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function host(options: { retentionDays?: number; dir?: string; signingKey?: string } = {}) {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'cugar-retention-'));
  const signingKey = options.signingKey ?? generateSigningKey();
  const server: RunningServer = await startServer({
    port: 0,
    dataDir: dir,
    tokens: parseTokenMap(TOKENS),
    signingKey,
    corpusDir: join(dir, 'no-corpus'),
    rateLimit: { perSecond: 1000, burst: 5000 },
    ...(options.retentionDays ? { retentionDays: options.retentionDays } : {}),
    log: () => undefined,
  });
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  server.runtime.registry.register('demo', 'transfer', {
    description: 'Transfer money to an account',
    parameters: z.object({ amount: z.number().positive(), to: z.string() }),
    requiresApproval: true,
    handler: ({ amount, to }) => `sent ${amount} to ${to}`,
  });
  server.runtime.registry.register('demo', 'hold', {
    description: 'Wait until the test lets go',
    parameters: z.object({ label: z.string() }),
    handler: async ({ label }) => {
      await held;
      return label;
    },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    release();
    await server.close();
  };
  cleanup.push(close);
  if (!options.dir) cleanup.unshift(() => rmSync(dir, { recursive: true, force: true }));
  const call = caller((path, init) => fetch(new URL(path, server.url), init));
  const start = async (goal: string, wait = true) =>
    (
      (await (await call('POST', '/v1/runs', { token: ADMIN, body: { goal, profile: 'demo' }, ...(wait ? { headers: WAIT } : {}) })).json()) as {
        runId: string;
      }
    ).runId;
  const status = async (runId: string) => (await call('GET', `/v1/runs/${runId}`, { token: ADMIN })).status;
  const audit = async () => (await (await call('GET', '/v1/audit', { token: ADMIN })).json()) as Audit;
  return { dir, server, call, start, status, audit, release, close, store: server.runtime.store as SqliteStore, signingKey, file: join(dir, 'cugar.db') };
}

async function runState(call: Call, runId: string): Promise<string> {
  return ((await (await call('GET', `/v1/runs/${runId}`, { token: ADMIN })).json()) as { status: string }).status;
}

describe('audit retention on the Node host', () => {
  it('prunes finished runs older than the limit, never a running or paused one, and the audit still passes', async () => {
    const h = await host();
    const done = [await h.start('add 1 and 2'), await h.start('add 3 and 4')];
    const paused = await h.start('transfer(amount=5, to="bob")');
    const running = await h.start('hold(label="x")', false);
    await expect.poll(() => runState(h.call, running)).toBe('running');
    expect(await runState(h.call, paused)).toBe('paused');

    // Nothing is old enough yet.
    expect(pruneOnce(h.store, { days: 90 })).toEqual({ pruned: 0, more: false });
    // Ninety-one days on, the finished runs go; the paused and the running run stay.
    expect(pruneOnce(h.store, { days: 90, now: later(91) })).toEqual({ pruned: 2, more: false });
    for (const runId of done) expect(await h.status(runId)).toBe(404);
    expect(await runState(h.call, paused)).toBe('paused');
    expect(await runState(h.call, running)).toBe('running');

    const log: HeadLog = await h.store.readHeadLog();
    for (const runId of done) {
      const entries = log.entries.filter((entry) => entry.runId === runId);
      const [final, pruned] = entries.slice(-2);
      expect(final).toMatchObject({ final: true });
      expect(pruned).toMatchObject({ pruned: true, seq: final!.seq, hash: final!.hash });
    }
    const audit = await h.audit();
    expect(audit).toMatchObject({ ok: true, log: { ok: true, signature: 'signed', pruned: 2 } });
    expect(audit.runs.map((r) => r.runId).sort()).toEqual([paused, running].sort());

    // The held run finishes now; it is recent, so the next pass keeps it.
    h.release();
    await expect.poll(() => runState(h.call, running)).toBe('completed');
    expect(pruneOnce(h.store, { days: 90 })).toEqual({ pruned: 0, more: false });
  });

  it('tells a pruned run from one deleted around the store, and a pruned record nobody signed from a signed one', async () => {
    const h = await host();
    const [pruned, deleted] = [await h.start('add 1 and 2'), await h.start('add 3 and 4')];
    // Make only the first run old, by its summary's time (its head, and so its hashes, unchanged).
    const db = new Database(h.file);
    for (const [runId, age] of [
      [pruned, 100],
      [deleted, 1],
    ] as const) {
      const row = db.prepare('SELECT summary FROM runs WHERE run_id = ?').get(runId) as { summary: string };
      const summary = { ...(JSON.parse(row.summary) as Record<string, unknown>), updatedAt: Date.now() - age * DAY };
      db.prepare('UPDATE runs SET summary = ?, created_at = ? WHERE run_id = ?').run(JSON.stringify(summary), Date.now() - age * DAY, runId);
    }
    expect(pruneOnce(h.store, { days: 30 })).toEqual({ pruned: 1, more: false });
    // Someone with the database file (not the key) deletes the other run's rows.
    db.prepare('DELETE FROM events WHERE run_id = ?').run(deleted);
    db.prepare('DELETE FROM runs WHERE run_id = ?').run(deleted);
    const audit = await h.audit();
    expect(audit.ok).toBe(false);
    expect(audit.log.pruned).toBe(1);
    expect(audit.runs).toEqual([{ runId: deleted, ok: false, reason: expect.stringContaining('it was deleted') }]);

    // A pruned record written around the store (anyone can fold an entry, only the host can sign it) is no signed one.
    const log = await h.store.readHeadLog();
    const final = log.entries.findLast((entry) => entry.runId === deleted && entry.final)!;
    const forged = nextLogEntry(logHeadAfter(log.entries.at(-1)), {
      runId: deleted,
      profile: 'demo',
      seq: final.seq,
      hash: final.hash,
      rest: true,
      final: true,
      pruned: true,
    });
    const runs = (await h.store.listRuns()).map(({ runId, profile, head, status }) => ({ runId, profile, head, status }));
    const signer = createHeadSigner(h.signingKey);
    const check = (head: LogHead, signature: { keyId: string; sig: string }) => signer.verifyLog(head, signature);
    const honest = auditHeadLog(log, runs, check);
    expect(honest.pruned).toEqual([{ runId: pruned, profile: 'demo', seq: expect.any(Number), hash: expect.any(String), signed: true }]);
    const rewritten = auditHeadLog({ ...log, entries: [...log.entries, forged] }, runs, check);
    expect(rewritten).toMatchObject({ ok: false, signature: 'unsigned' });
    expect(rewritten.pruned.find((p) => p.runId === deleted)).toMatchObject({ signed: false });
    db.close();
  });

  it('keeps passing while old runs remain, on a timer that can be stopped', async () => {
    const h = await host();
    const ids = [await h.start('add 1 and 2'), await h.start('add 3 and 4'), await h.start('add 5 and 6')];
    const lines: string[] = [];
    const retention = startRetention(h.store, { days: 1, now: later(2), batch: 1, catchUpMs: 10, intervalMs: 60_000, log: (line) => lines.push(line) });
    cleanup.push(() => retention.stop());
    await expect.poll(async () => (await Promise.all(ids.map((id) => h.status(id)))).every((code) => code === 404)).toBe(true);
    expect(lines).toEqual(Array(3).fill('retention: deleted the journals of 1 run(s) finished more than 1 day(s) ago; their heads stay in the log'));
    retention.stop();
    const late = await h.start('add 7 and 8');
    expect(pruneOnce(h.store, { days: 1 })).toEqual({ pruned: 0, more: false });
    expect(await runState(h.call, late)).toBe('completed');
  });

  it('bounds each pass, and the host enforces retention at start; cugar verify reports the pruned runs', async () => {
    const first = await host();
    const ids = [await first.start('add 1 and 2'), await first.start('add 3 and 4'), await first.start('add 5 and 6')];
    expect(pruneOnce(first.store, { days: 1, now: later(2), batch: 2 })).toEqual({ pruned: 2, more: true });
    expect(pruneOnce(first.store, { days: 1, now: later(2), batch: 2 })).toEqual({ pruned: 1, more: false });
    const keep = await first.start('add 7 and 8');
    const old = await first.start('add 9 and 10');
    await first.close();
    // Age one run on disk, then start the host again with retention: the pass at start prunes it.
    const db = new Database(first.file);
    const row = db.prepare('SELECT summary FROM runs WHERE run_id = ?').get(old) as { summary: string };
    db.prepare('UPDATE runs SET summary = ?, created_at = ? WHERE run_id = ?').run(
      JSON.stringify({ ...(JSON.parse(row.summary) as Record<string, unknown>), updatedAt: Date.now() - 10 * DAY }),
      Date.now() - 10 * DAY,
      old,
    );
    db.close();
    const second = await host({ dir: first.dir, signingKey: first.signingKey, retentionDays: 7 });
    expect(await second.status(old)).toBe(404);
    expect(await runState(second.call, keep)).toBe('completed');
    expect(await second.audit()).toMatchObject({ ok: true, log: { pruned: 4 } });
    await second.close();

    const publicKey = createHeadSigner(first.signingKey).publicKey;
    const verified = await run(process.execPath, [join(root, 'src/cli/bin.mjs'), 'verify', '--public-key', publicKey, '--data-dir', first.dir], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 60_000,
    });
    expect(verified.stdout).toContain('log of heads: signed');
    expect(verified.stdout).toContain('4 run(s) pruned by retention');
    for (const runId of [...ids, old]) expect(verified.stdout).toContain(runId);
    expect(verified.stdout).toContain(`signed   ${keep} completed`);
  });
});
