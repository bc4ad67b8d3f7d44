import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsOf, verifyJournal } from '../../src/core/index.ts';
import { startServer } from '../../src/edge/nodeServer.ts';
import { untilSettled } from '../support/interruptedRun.ts';
import { startModelServer } from '../support/modelServer.ts';

// SIGKILL the Node host while a model call is in flight: the call's start is durable, its
// answer never arrives. The next host process resumes the run, re-issues the call as the next
// attempt, and the run completes with its tool's keyed effect exactly once.

const root = join(import.meta.dirname, '..', '..');
const KEY = 'sk-canary-kill-4e2b7d91c03a';
const dir = mkdtempSync(join(tmpdir(), 'cugar-agent-kill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function startChild(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string; token: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, join(dir, 'data'), join(dir, 'no-corpus')], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /ready (\S+) (\S+)/.exec(chunk.toString());
      if (match) resolve({ child, url: match[1]!, token: match[2]!, stderr: () => stderr });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the host exited (${code}) before it was ready: ${stderr}`)));
  });
}

describe('SIGKILL during a model call', () => {
  it('resumes on the next start, re-issues the call as a retry, and completes once', { timeout: 120_000 }, async () => {
    // The bundle lives in the checkout so it resolves better-sqlite3 from node_modules.
    mkdirSync(join(root, '.vitest-reports'), { recursive: true });
    const script = join(root, '.vitest-reports', 'agent-host-child.mjs');
    await build({
      entryPoints: [join(root, 'tests/support/agentHostChild.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: script,
      external: ['better-sqlite3'],
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
      logLevel: 'silent',
    });
    const models = await startModelServer([
      // The first answer never comes: the host is killed while it waits.
      { slow: 60_000, then: { text: 'never seen' } },
      { calls: [{ name: 'remember', args: { text: 'the staging key rotates on Fridays' } }] },
      { text: 'Noted.' },
      { text: 'Remembered that the staging key rotates on Fridays.' },
    ]);
    const env = { CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small', CUGAR_MODEL_KEY: KEY };
    try {
      const host = await startChild(script, env);
      const accepted = await fetch(`${host.url}/v1/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ goal: 'remember that the staging key rotates on Fridays', profile: 'demo' }),
      });
      expect(accepted.status).toBe(202);
      const { runId } = (await accepted.json()) as { runId: string };
      await expect.poll(() => models.requests.length, { timeout: 20_000, interval: 20 }).toBe(1);
      const exited = new Promise((resolve) => host.child.on('exit', resolve));
      host.child.kill('SIGKILL');
      await exited;
      expect(host.stderr()).not.toContain(KEY);

      const logs: string[] = [];
      const restarted = await startServer({
        port: 0,
        dataDir: join(dir, 'data'),
        corpusDir: join(dir, 'no-corpus'),
        modelEnv: env,
        log: (line) => logs.push(line),
      });
      try {
        const read = async () =>
          (await (await fetch(`${restarted.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${restarted.localToken}` } })).json()) as {
            status: string;
            outputs?: Record<string, unknown>;
          };
        expect(await untilSettled(read)).toMatchObject({ status: 'completed', outputs: { answer: 'Noted.' } });
        const journal = await restarted.runtime.store.readJournal(runId);
        expect(verifyJournal(journal).ok).toBe(true);
        expect(eventsOf(journal, 'model_call_start').map((e) => [e.data.turn, e.data.attempt, e.data.rerun ?? false])).toEqual([
          [1, 1, false],
          [1, 2, true],
          [2, 1, false],
          // The reflection.
          [1, 1, false],
        ]);
        expect(eventsOf(journal, 'model_call_start').map((e) => e.data.purpose)).toEqual([undefined, undefined, undefined, 'reflect']);
        expect(eventsOf(journal, 'tool_call_start').map((e) => e.data.tool)).toEqual(['remember']);
        expect(models.requests).toHaveLength(4);
        expect(JSON.stringify(journal)).not.toContain(KEY);
        expect(logs.join('\n')).not.toContain(KEY);
      } finally {
        await restarted.close();
      }
    } finally {
      await models.close();
    }
  });
});
