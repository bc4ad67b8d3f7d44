import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/edge/nodeServer.ts';
import { startModelServer } from '../support/modelServer.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cugar-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cugar(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(root, 'src/cli/bin.mjs'), ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the cugar command', () => {
  const data = ['--data-dir', join(dir, 'data')];

  it('runs, lists, traces, verifies and replays against the local data directory, one JSON document per --json call', async () => {
    const result = await cugar(['run', 'add 2 and 3 then multiply the result by 4', '--json', ...data]);
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as { runId: string; outputs: Record<string, number> };
    expect(outcome.outputs).toEqual({ 'step-0': 5, 'step-1': 20 });
    const runs = JSON.parse((await cugar(['runs', '--json', ...data])).stdout) as Array<{ runId: string }>;
    expect(runs.map((r) => r.runId)).toContain(outcome.runId);
    const otlp = JSON.parse((await cugar(['trace', outcome.runId, '--otlp', ...data])).stdout) as { resourceSpans: unknown[] };
    expect(otlp.resourceSpans).toHaveLength(1);
    expect(JSON.parse((await cugar(['verify', '--json', ...data])).stdout)).toMatchObject({ ok: true });
    expect(JSON.parse((await cugar(['replay', outcome.runId, '--json', ...data])).stdout)).toMatchObject({ ok: true });
    const tree = await cugar(['trace', outcome.runId, ...data]);
    expect(tree.stdout).toContain('stage execute');
  });

  it('ingests with NDJSON progress on stderr when not a TTY, and answers queries', async () => {
    const a = join(dir, 'bees.md');
    const b = join(dir, 'tea.txt');
    writeFileSync(a, 'Varroa mites weaken honey bee colonies.');
    writeFileSync(b, 'Oolong tea is steeped several times.');
    const result = await cugar(['ingest', a, b, '--json', ...data]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ documents: 2 });
    const progress = result.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; done: number; total: number });
    expect(progress.map((p) => [p.done, p.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    const hits = JSON.parse((await cugar(['query', 'varroa', '--json', ...data])).stdout) as Array<{ path: string }>;
    expect(hits[0]!.path).toBe('bees.md');
  });

  it('exits with meaningful codes', async () => {
    expect((await cugar(['nonsense'])).code).toBe(2);
    expect((await cugar(['run', 'divide 1 by 0', ...data])).code).toBe(1);
    expect((await cugar(['trace', 'no-such-run', ...data])).code).toBe(3);
    expect((await cugar(['tools', '--profile', 'ghost', ...data])).code).toBe(3);
    expect((await cugar(['--help'])).code).toBe(0);
  });

  it('diffs two journal files: the first differing event and field, exit 1; the same journal, exit 0', async () => {
    const run = JSON.parse((await cugar(['run', 'add 2 and 3', '--json', ...data])).stdout) as { runId: string };
    const db = new (await import('../../src/edge/sqliteStore.ts')).SqliteStore(join(dir, 'data', 'cugar.db'));
    const ndjson = (await import('../../src/core/index.ts')).exportJournal(await db.readJournal(run.runId));
    await db.close();
    const lines = ndjson.trim().split('\n');
    lines[3] = lines[3]!.replace(/"at":(\d+)/, (_, at: string) => `"at":${Number(at) + 7}`);
    writeFileSync(join(dir, 'golden.ndjson'), ndjson);
    writeFileSync(join(dir, 'changed.ndjson'), `${lines.join('\n')}\n`);
    const differs = await cugar(['diff', join(dir, 'golden.ndjson'), join(dir, 'changed.ndjson')]);
    expect(differs.code).toBe(1);
    expect(differs.stdout).toContain('journals differ at seq 3');
    expect(differs.stdout).toMatch(/\.at: .*golden\.ndjson=\d+/);
    const same = await cugar(['diff', join(dir, 'golden.ndjson'), join(dir, 'golden.ndjson'), '--json']);
    expect([same.code, JSON.parse(same.stdout)]).toEqual([0, { same: true }]);
    expect((await cugar(['diff', join(dir, 'golden.ndjson'), join(dir, 'missing.ndjson')])).code).toBe(3);
    // A journal that does not verify is exit 1 (as documented), a missing file exit 3, each with a clear message.
    const replayed = await cugar(['replay', join(dir, 'changed.ndjson'), ...data]);
    expect([replayed.code, replayed.stderr]).toEqual([1, expect.stringContaining('does not verify')]);
    const missing = await cugar(['replay', join(dir, 'missing.ndjson'), ...data]);
    expect([missing.code, missing.stderr]).toEqual([3, expect.stringContaining('cannot read')]);
  });

  it('says plainly when a server cannot be reached, a port is taken or a public address has no tokens', async () => {
    const down = await cugar(['runs'], { CUGAR_API: 'http://127.0.0.1:9', CUGAR_TOKEN: 'tok-0123456789abcdef' });
    expect([down.code, down.stderr]).toEqual([1, expect.stringContaining('cannot reach the CUGAr server at http://127.0.0.1:9')]);
    const server = await startServer({ port: 0, dataDir: join(dir, 'busy'), corpusDir: join(dir, 'none'), log: () => undefined });
    try {
      const port = new URL(server.url).port;
      const busy = await cugar(['serve', '--port', port, '--data-dir', join(dir, 'busy2')]);
      expect([busy.code, busy.stderr]).toEqual([2, expect.stringContaining(`port ${port} on 127.0.0.1 is in use`)]);
    } finally {
      await server.close();
    }
    const open = await cugar(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', join(dir, 'open')], { CUGAR_TOKENS: '' });
    expect([open.code, open.stderr]).toEqual([2, expect.stringContaining('refusing to bind 0.0.0.0 without tokens')]);
  });

  it('runs a local agent run with --model against an OpenAI-compatible server, and refuses --model with --api', async () => {
    const models = await startModelServer([{ calls: [{ name: 'add', args: { a: 2, b: 3 } }] }, { text: 'The sum is 5.' }, { text: 'Added 2 and 3 with add.' }]);
    try {
      const env = { CUGAR_MODEL_URL: models.url, CUGAR_MODEL_KEY: 'sk-cli-model-key-0123456789abcdef' };
      const result = await cugar(['run', 'what is 2 plus 3?', '--model', 'small', '--json', '--data-dir', join(dir, 'agent')], env);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed', outputs: { answer: 'The sum is 5.' } });
      // Two turns, then the run's reflection.
      expect(models.requests.map((r) => r.body.model)).toEqual(['small', 'small', 'small']);
      expect(result.stdout + result.stderr).not.toContain('sk-cli-model-key');
      expect((await cugar(['run', 'x', '--model', 'small', '--api', 'http://127.0.0.1:9'])).code).toBe(2);
    } finally {
      await models.close();
    }
  });

  it('approves, rejects, resumes, cancels and exports from the command line', async () => {
    const paused = await cugar(['run', 'send_message(to="ops", text="password=hunter2cli")', '--json', ...data]);
    expect(paused.code).toBe(5);
    const { pendingApproval, runId } = JSON.parse(paused.stdout) as { runId: string; pendingApproval: { approvalId: string } };
    expect(paused.stderr).toContain(`cugar approve ${pendingApproval.approvalId}`);
    const approved = await cugar(['approve', pendingApproval.approvalId, '--reason', 'checked', '--json', ...data]);
    expect([approved.code, JSON.parse(approved.stdout)]).toEqual([0, expect.objectContaining({ runId, status: 'completed' })]);
    const again = JSON.parse((await cugar(['run', 'send_message(to="ops", text="no")', '--json', ...data])).stdout) as {
      pendingApproval: { approvalId: string };
    };
    const rejected = await cugar(['reject', again.pendingApproval.approvalId, '--json', ...data]);
    expect([rejected.code, (JSON.parse(rejected.stdout) as { status: string }).status]).toEqual([1, 'failed']);
    const third = JSON.parse((await cugar(['run', 'send_message(to="ops", text="later")', '--json', ...data])).stdout) as { runId: string };
    // Resuming a run that waits for a person leaves it waiting (exit 5); a finished run cannot be resumed (exit 2).
    expect((await cugar(['resume', third.runId, '--json', ...data])).code).toBe(5);
    const cancelled = await cugar(['cancel', third.runId, '--json', ...data]);
    expect([cancelled.code, (JSON.parse(cancelled.stdout) as { status: string }).status]).toEqual([0, 'cancelled']);
    expect((await cugar(['resume', runId, '--json', ...data])).code).toBe(2);
    // Exported redacted (a derived journal that verifies), or raw on request.
    const { parseJournal, verifyJournal, derivedFromOf } = await import('../../src/core/index.ts');
    const redacted = parseJournal((await cugar(['export', runId, ...data])).stdout);
    expect(verifyJournal(redacted)).toMatchObject({ ok: true });
    expect(derivedFromOf(redacted)?.runId).toBe(runId);
    expect(JSON.stringify(redacted)).not.toContain('hunter2cli');
    const raw = parseJournal((await cugar(['export', runId, '--raw', ...data])).stdout);
    expect(verifyJournal(raw)).toMatchObject({ ok: true });
    expect(JSON.stringify(raw)).toContain('hunter2cli');
  });

  it('works against a remote server with a token', async () => {
    const server = await startServer({ port: 0, dataDir: join(dir, 'server'), corpusDir: join(dir, 'none'), log: () => undefined });
    try {
      const env = { CUGAR_API: server.url, CUGAR_TOKEN: server.localToken! };
      // The server answers 202 at once; the CLI follows the run's events to its end.
      const result = await cugar(['run', 'wait(ms=300); calculate(expression="(2 + 3) * 4")', '--json'], env);
      const outcome = JSON.parse(result.stdout) as { runId: string; status: string; outputs: Record<string, number> };
      expect(outcome).toMatchObject({ status: 'completed', outputs: { 'step-1': 20 } });
      const records = JSON.parse((await cugar(['trace', outcome.runId, '--json'], env)).stdout) as Array<{ type: string }>;
      expect(records.at(-1)?.type).toBe('run_completed');
      const paused = await cugar(['run', 'send_message(to="ops", text="hi")', '--json'], env);
      expect(paused.code).toBe(5);
      expect(JSON.parse(paused.stdout)).toMatchObject({ status: 'paused', pendingApproval: { tool: 'send_message' } });
      const doc = join(dir, 'remote.md');
      writeFileSync(doc, 'Remote ingest goes through the event stream.');
      const ingested = await cugar(['ingest', doc, '--json'], env);
      expect(JSON.parse(ingested.stdout)).toMatchObject({ documents: 1 });
      expect(
        ingested.stderr
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { done: number }),
      ).toEqual([expect.objectContaining({ done: 1, total: 1 })]);
      const tools = JSON.parse((await cugar(['tools', '--json'], env)).stdout) as Array<{ name: string }>;
      expect(tools.map((t) => t.name)).toContain('rag_query');
      expect((await cugar(['tools'], { ...env, CUGAR_TOKEN: 'wrong-token' })).code).toBe(2);
    } finally {
      await server.close();
    }
  });
});
