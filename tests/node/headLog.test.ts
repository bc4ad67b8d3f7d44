import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { canonicalJson } from '../../src/core/index.ts';
import { logEntryHash } from '../../src/core/journal/headLog.ts';
import { sealEvent } from '../../src/core/testing.ts';
import { createHeadSigner, generateSigningKey } from '../../src/core/signing.ts';
import { parseTokenMap } from '../../src/api/tokens.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { ADMIN, DEMO, OTHER, TOKENS, WAIT, caller, type Call } from '../support/apiConformance.ts';

// The signed log of heads against the real Node host on loopback: its SQLite file is edited from
// outside, as someone with write access to the database (but not to the key) would.

interface Audit {
  ok: boolean;
  runs: Array<{ runId: string; ok: boolean; reason?: string }>;
  log: { ok: boolean; size?: number; signedSize?: number; signature: string; problem?: string; predating?: number; note?: string };
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function host(): Promise<{ server: RunningServer; call: Call; file: string; start: (goal: string) => Promise<string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'cugar-head-log-'));
  const server = await startServer({
    port: 0,
    dataDir: dir,
    tokens: parseTokenMap(TOKENS),
    signingKey: generateSigningKey(),
    corpusDir: join(dir, 'no-corpus'),
    rateLimit: { perSecond: 1000, burst: 5000 },
    log: () => undefined,
  });
  server.runtime.registry.register('demo', 'transfer', {
    description: 'Transfer money to an account',
    parameters: z.object({ amount: z.number().positive(), to: z.string() }),
    requiresApproval: true,
    handler: ({ amount, to }) => `sent ${amount} to ${to}`,
  });
  stop = async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
  const call = caller((path, init) => fetch(new URL(path, server.url), init));
  const start = async (goal: string) =>
    ((await (await call('POST', '/v1/runs', { body: { goal, profile: 'demo' }, headers: WAIT })).json()) as { runId: string }).runId;
  return { server, call, file: join(dir, 'cugar.db'), start };
}

const audit = async (call: Call, token = ADMIN) => (await (await call('GET', '/v1/audit', { token })).json()) as Audit;

/** Edit the host's database from outside. */
function edit(file: string, change: (db: Database.Database) => void): void {
  const db = new Database(file);
  try {
    change(db);
  } finally {
    db.close();
  }
}

function deleteRun(db: Database.Database, runId: string): void {
  for (const table of ['events', 'runs', 'approvals']) db.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(runId);
}

describe('The signed log of heads', () => {
  it('finds nothing in a store nobody touched, and serves the heads to a token for every profile only', async () => {
    const { call, start } = await host();
    for (const goal of ['add 1 and 2', 'add 3 and 4', 'count the words in "a b c"']) await start(goal);
    const result = await audit(call);
    expect(result).toMatchObject({ ok: true, log: { ok: true, signature: 'signed', predating: 0 } });
    expect(result.log.signedSize).toBe(result.log.size);
    expect(result.runs.every((r) => r.ok)).toBe(true);
    const { log, runs } = (await (await call('GET', '/v1/audit/heads', { token: ADMIN })).json()) as {
      log: { entries: unknown[]; signed: { size: number } };
      runs: Array<{ signature?: unknown }>;
    };
    expect(log.entries).toHaveLength(result.log.size!);
    expect(log.signed.size).toBe(result.log.size);
    expect(runs).toHaveLength(3);
    expect(runs.every((run) => typeof run.signature === 'object')).toBe(true);
    expect((await call('GET', '/v1/audit/heads', { token: DEMO })).status).toBe(403);
  });

  it('reports a run whose rows were deleted straight from SQLite, to the tokens that may see it', async () => {
    const { call, file, start } = await host();
    const gone = await start('add 1 and 2');
    const kept = await start('add 3 and 4');
    edit(file, (db) => deleteRun(db, gone));
    const result = await audit(call);
    expect(result.ok).toBe(false);
    expect(result.runs.find((r) => r.runId === gone)).toMatchObject({ ok: false, reason: expect.stringMatching(/signed log .* no such run: it was deleted/) });
    expect(result.runs.find((r) => r.runId === kept)).toMatchObject({ ok: true });
    // The log itself is intact and signed: the finding is about the run.
    expect(result.log).toMatchObject({ signature: 'signed' });
    // Another profile's token hears nothing of the demo profile's run.
    const other = await audit(call, OTHER);
    expect(other.runs.map((r) => r.runId)).not.toContain(gone);
    // Nor how many appends every profile made: the log's size is for a token of every profile.
    expect(other.log).toEqual({ ok: true, signature: 'signed' });
  });

  it('reports a run rolled back to an earlier head that was signed, which its own signature cannot show', async () => {
    const { call, file, start } = await host();
    const runId = await start('transfer(amount=5, to="bob")');
    const paused = await (await call('GET', `/v1/runs/${runId}`)).json();
    expect(paused).toMatchObject({ status: 'paused' });
    // Keep the row of the paused run, signed head and all.
    let pausedRow = '';
    edit(file, (db) => (pausedRow = (db.prepare('SELECT summary FROM runs WHERE run_id = ?').get(runId) as { summary: string }).summary));
    const pausedHead = (JSON.parse(pausedRow) as { head: { seq: number } }).head;
    const { approvals } = (await (await call('GET', '/v1/approvals?status=pending')).json()) as { approvals: Array<{ approvalId: string }> };
    const approval = approvals[0];
    expect((await call('POST', `/v1/approvals/${approval!.approvalId}`, { body: { decision: 'approve', reason: 'ok' } })).status).toBe(200);
    expect(await audit(call)).toMatchObject({ ok: true });
    // Roll the run back: its later events deleted, its row put back as it was while paused.
    edit(file, (db) => {
      db.prepare('DELETE FROM events WHERE run_id = ? AND seq > ?').run(runId, pausedHead.seq);
      db.prepare('UPDATE runs SET summary = ?, status = ? WHERE run_id = ?').run(pausedRow, 'paused', runId);
    });
    const result = await audit(call);
    expect(result.ok).toBe(false);
    expect(result.runs.find((r) => r.runId === runId)).toMatchObject({ ok: false, reason: expect.stringContaining(`rolled back to seq ${pausedHead.seq}`) });
  });

  it('reports a run whose rows were written around the store, and a log rewritten or stripped of its signature', async () => {
    const { call, file, start } = await host();
    const first = await start('add 1 and 2');
    const second = await start('add 3 and 4');
    // Rows outside the chain: a run with a valid chain of its own, still running (so unsigned),
    // written into the tables without going through the store.
    const event = sealEvent(undefined, 'planted', 'stage', 1, { stage: 'initialize' });
    edit(file, (db) => {
      db.prepare('INSERT INTO events (run_id, seq, type, at, data, prev, hash) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        'planted',
        0,
        event.type,
        event.at,
        canonicalJson(event.data),
        event.prev,
        event.hash,
      );
      const summary = {
        runId: 'planted',
        traceId: 't',
        profile: 'demo',
        goal: 'g',
        status: 'running',
        createdAt: 1,
        updatedAt: 1,
        head: { seq: 0, hash: event.hash },
      };
      db.prepare('INSERT INTO runs (run_id, trace_id, profile, status, created_at, summary) VALUES (?, ?, ?, ?, ?, ?)').run(
        'planted',
        't',
        'demo',
        'running',
        1,
        JSON.stringify(summary),
      );
    });
    let result = await audit(call);
    expect(result.runs.find((r) => r.runId === 'planted')).toMatchObject({ ok: false, reason: expect.stringContaining('not in the log of heads') });
    expect(result.runs.find((r) => r.runId === first)).toMatchObject({ ok: true });
    edit(file, (db) => deleteRun(db, 'planted'));
    expect(await audit(call)).toMatchObject({ ok: true });

    // Delete a run and its entries, then fold the rest of the log again: without the key, the
    // new head cannot be signed, and the old signature no longer matches.
    edit(file, (db) => {
      deleteRun(db, second);
      db.prepare('DELETE FROM head_log WHERE run_id = ?').run(second);
      const rows = db.prepare('SELECT * FROM head_log ORDER BY idx').all() as Array<Record<string, unknown>>;
      db.prepare('DELETE FROM head_log').run();
      let prev = '0'.repeat(64);
      rows.forEach((row, index) => {
        const entry = {
          index,
          runId: row['run_id'] as string,
          profile: row['profile'] as string,
          seq: row['seq'] as number,
          hash: row['hash'] as string,
          ...((row['flags'] as number) & 1 ? { rest: true as const } : {}),
          ...((row['flags'] as number) & 4 ? { final: true as const } : {}),
        };
        prev = logEntryHash(prev, entry);
        db.prepare('INSERT INTO head_log (idx, run_id, profile, seq, hash, flags, log_hash) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
          index,
          entry.runId,
          entry.profile,
          entry.seq,
          entry.hash,
          row['flags'],
          prev,
        );
      });
    });
    result = await audit(call);
    expect(result.ok).toBe(false);
    expect(result.log).toMatchObject({ ok: false, signature: 'bad', problem: expect.stringContaining('rewritten') });

    // The same, with the signature row dropped too: the log's checkpoints are then unsigned.
    edit(file, (db) => db.prepare('DELETE FROM head_log_signature').run());
    result = await audit(call);
    expect(result.log).toMatchObject({ ok: false, signature: 'unsigned', problem: expect.stringContaining('not signed') });
  });

  it('signs with the key it publishes: the log verifies with the public key alone', async () => {
    const { call, start } = await host();
    await start('add 1 and 2');
    const { keys } = (await (await call('GET', '/v1/keys', { token: null })).json()) as { keys: Array<{ publicKey: string }> };
    const { log } = (await (await call('GET', '/v1/audit/heads', { token: ADMIN })).json()) as {
      log: { signed: { size: number; hash: string; keyId: string; sig: string } };
    };
    const { verifyLogHeadSignature } = await import('../../src/core/signing.ts');
    expect(verifyLogHeadSignature(log.signed, log.signed, keys[0]!.publicKey)).toBe(true);
    expect(verifyLogHeadSignature({ ...log.signed, size: log.signed.size + 1 }, log.signed, keys[0]!.publicKey)).toBe(false);
    expect(verifyLogHeadSignature(log.signed, log.signed, createHeadSigner(generateSigningKey()).publicKey)).toBe(false);
  });
});
