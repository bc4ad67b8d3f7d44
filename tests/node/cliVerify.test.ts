import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeadSigner, generateSigningKey } from '../../src/core/signing.ts';
import { parseTokenMap } from '../../src/api/tokens.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { ADMIN, TOKENS, WAIT, caller, type Call } from '../support/apiConformance.ts';
import { runCugar, type CliResult } from '../support/cliProcess.ts';

// `cugar verify --public-key`: the CLI checks a server's signed heads and log of heads, an
// exported journal, and the local data directory with the host's public key only.
const dir = mkdtempSync(join(tmpdir(), 'cugar-cli-verify-'));
const dataDir = join(dir, 'data');

function cugar(args: string[]): Promise<CliResult> {
  return runCugar(args, { env: { CUGAR_API: '', CUGAR_TOKEN: '', CUGAR_SIGNING_KEY: '' } });
}

interface Verified {
  ok: boolean;
  log: { ok: boolean; state: string; size: number; signedSize: number; problem?: string; since?: string };
  runs: Array<{ runId: string; head: string; ok: boolean; reason?: string }>;
}

let server: RunningServer;
let call: Call;
let runIds: string[] = [];
let publicKey = '';
const keysFile = join(dir, 'keys.json');

beforeAll(async () => {
  server = await startServer({
    port: 0,
    dataDir,
    tokens: parseTokenMap(TOKENS),
    signingKey: generateSigningKey(),
    corpusDir: join(dir, 'no-corpus'),
    rateLimit: { perSecond: 1000, burst: 5000 },
    log: () => undefined,
  });
  call = caller((path, init) => fetch(new URL(path, server.url), init));
  runIds = [];
  for (const goal of ['add 2 and 3', 'add 4 and 5']) {
    const outcome = (await (await call('POST', '/v1/runs', { token: ADMIN, body: { goal, profile: 'demo' }, headers: WAIT })).json()) as { runId: string };
    runIds.push(outcome.runId);
  }
  const keys = await (await call('GET', '/v1/keys', { token: null })).text();
  writeFileSync(keysFile, keys);
  publicKey = (JSON.parse(keys) as { keys: Array<{ publicKey: string }> }).keys[0]!.publicKey;
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cugar verify --public-key', () => {
  it("verifies a server's heads and log with the key from GET /v1/keys, and refuses them under another key", async () => {
    const remote = ['--api', server.url, '--token', ADMIN, '--json'];
    const good = await cugar(['verify', '--public-key', `${server.url}/v1/keys`, ...remote]);
    expect(good.code).toBe(0);
    const verified = JSON.parse(good.stdout) as Verified;
    expect(verified).toMatchObject({ ok: true, log: { ok: true, state: 'signed' } });
    expect(verified.log.signedSize).toBe(verified.log.size);
    expect(verified.runs.filter((r) => runIds.includes(r.runId)).map((r) => r.head)).toEqual(['signed', 'signed']);
    // The signed head it printed pins the log: later it must still extend it, as an append-only log does.
    expect(verified.log.since).toMatch(/^\d+:[0-9a-f]{64}$/);
    await call('POST', '/v1/runs', { token: ADMIN, body: { goal: 'add 6 and 7', profile: 'demo' }, headers: WAIT });
    const later = await cugar(['verify', '--public-key', publicKey, '--since', verified.log.since!, ...remote]);
    expect(later.code).toBe(0);
    const [size, hash] = verified.log.since!.split(':');
    const elsewhere = await cugar(['verify', '--public-key', publicKey, '--since', `${Number(size) + 100}:${hash}`, ...remote]);
    expect(elsewhere.code).toBe(1);
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({ ok: false, log: { problem: expect.stringContaining('does not extend the head seen before') } });
    const other = await cugar(['verify', '--public-key', createHeadSigner(generateSigningKey()).publicKey, ...remote]);
    expect(other.code).toBe(1);
    const refused = JSON.parse(other.stdout) as Verified;
    expect(refused).toMatchObject({ ok: false, log: { state: 'bad' } });
    expect(refused.runs.every((r) => r.head === 'bad' && !r.ok)).toBe(true);
  });

  it('verifies an exported journal offline, and says so in words', async () => {
    const file = join(dir, 'export.ndjson');
    writeFileSync(file, await (await call('GET', `/v1/runs/${runIds[0]}/journal?format=ndjson`, { token: ADMIN })).text());
    const result = await cugar(['verify', file, '--public-key', keysFile, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, runId: runIds[0], state: 'signed', problems: [] });
    const human = await cugar(['verify', file, '--public-key', publicKey]);
    expect(human.stdout).toContain(`verified ${runIds[0]}`);
    // One changed byte in the export, and the journal no longer verifies.
    const forged = join(dir, 'forged.ndjson');
    writeFileSync(forged, (await (await call('GET', `/v1/runs/${runIds[0]}/journal?format=ndjson`, { token: ADMIN })).text()).replace('"add"', '"mul"'));
    const broken = await cugar(['verify', forged, '--public-key', publicKey, '--json']);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout)).toMatchObject({ ok: false });
  });

  it('reports a run deleted from the database, on the server, in the local data and against a saved export', async () => {
    const file = join(dir, 'deleted.ndjson');
    writeFileSync(file, await (await call('GET', `/v1/runs/${runIds[1]}/journal?format=ndjson`, { token: ADMIN })).text());
    const db = new Database(join(dataDir, 'cugar.db'));
    for (const table of ['events', 'runs', 'approvals']) db.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(runIds[1]);
    db.close();
    const remote = await cugar(['verify', '--public-key', publicKey, '--api', server.url, '--token', ADMIN, '--json']);
    expect(remote.code).toBe(1);
    expect((JSON.parse(remote.stdout) as Verified).runs.find((r) => r.runId === runIds[1])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('deleted'),
    });
    const local = await cugar(['verify', '--public-key', keysFile, '--data-dir', dataDir, '--json']);
    expect(local.code).toBe(1);
    expect((JSON.parse(local.stdout) as Verified).runs.find((r) => r.runId === runIds[1])).toMatchObject({ ok: false });
    const heads = join(dir, 'heads.json');
    writeFileSync(heads, await (await call('GET', '/v1/audit/heads', { token: ADMIN })).text());
    // The export still carries its signed head, but the store's signed log says the run is gone.
    const saved = await cugar(['verify', file, '--public-key', publicKey, '--heads', heads, '--json']);
    expect(saved.code).toBe(1);
    expect(JSON.parse(saved.stdout)).toMatchObject({ ok: false, state: 'signed', problems: expect.arrayContaining([expect.stringContaining('deleted')]) });
  });
});
