import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTokenMap } from '../../src/api/tokens.ts';
import { envSecrets } from '../../src/core/index.ts';
import { startServer, type ServeOptions } from '../../src/edge/nodeServer.ts';
import { caller } from '../support/apiConformance.ts';
import { startModelServer } from '../support/modelServer.ts';
import { BLOB, CANARY_TOKENS, KNOWN_SECRET, RAW, SHAPES, describeSecretCanary, leaks } from '../support/secretCanary.ts';

const execute = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cugar-canary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The cugar CLI as a user runs it, against `api`; stdout and stderr together. */
async function cugar(args: string[], api: string): Promise<string> {
  try {
    const { stdout, stderr } = await execute(process.execPath, [join(root, 'src/cli/bin.mjs'), ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', CUGAR_API: api, CUGAR_TOKEN: RAW },
      timeout: 60_000,
    });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout: string; stderr: string };
    return e.stdout + e.stderr;
  }
}

/** The Node host with the canary tokens, the host secret CANARY_KEY and its log lines kept in `lines`. */
function canaryHost(data: string, lines: string[], more: Partial<ServeOptions> = {}) {
  return startServer({
    port: 0,
    dataDir: join(dir, data),
    corpusDir: join(dir, 'none'),
    tokens: parseTokenMap(CANARY_TOKENS),
    secrets: envSecrets({ CUGAR_SECRET_CANARY_KEY: KNOWN_SECRET }),
    log: (line) => lines.push(line),
    ...more,
  });
}

let url = '';
describeSecretCanary(
  'Node host on loopback',
  async () => {
    const lines: string[] = [];
    const server = await canaryHost('data', lines);
    url = server.url;
    return { call: caller((path, init) => fetch(new URL(path, server.url), init)), close: server.close, logs: () => lines.join('\n') };
  },
  (context) => {
    it('prints no secret from any CLI command, in any format, even with a raw-scoped token', async () => {
      const { runIds } = context();
      const outputs: Array<[string, string]> = [];
      for (const runId of runIds)
        for (const format of [[], ['--json'], ['--otlp']]) outputs.push([`trace ${format.join('')}`, await cugar(['trace', runId, ...format], url)]);
      outputs.push(['runs', await cugar(['runs'], url)]);
      outputs.push(['runs --json', await cugar(['runs', '--json'], url)]);
      outputs.push(['plan', await cugar(['plan', `count the words in "${BLOB}"`], url)]);
      outputs.push(['plan --json', await cugar(['plan', `count the words in "${BLOB}"`, '--json'], url)]);
      outputs.push(['run --json', await cugar(['run', `count the words in "${BLOB}"`, '--json'], url)]);
      outputs.push(['query', await cugar(['query', 'deployment credentials'], url)]);
      outputs.push(['verify', await cugar(['verify', ...runIds], url)]);
      expect(outputs.find(([, text]) => text.includes('run_completed') || text.includes('completed'))).toBeDefined();
      for (const [command, text] of outputs) expect(leaks(text), command).toEqual([]);
    }, 120_000);
  },
);

describe('secret canary: model prompts and answers (Node host with a model)', () => {
  it('keeps every secret shape of a prompt, an answer and a model tool call, and the model key, out of every view', { timeout: 60_000 }, async () => {
    const MODEL_KEY = 'sk-canary-model-key-7f6e5d4c3b2a1908';
    const models = await startModelServer([{ calls: [{ name: 'echo', args: { message: BLOB } }] }, { text: `Done. ${BLOB}` }]);
    const lines: string[] = [];
    const server = await canaryHost('model', lines, { modelEnv: { CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small', CUGAR_MODEL_KEY: MODEL_KEY } });
    const call = caller((path, init) => fetch(new URL(path, server.url), init));
    try {
      const started = await call('POST', '/v1/runs', {
        token: RAW,
        body: { goal: `Please echo this: ${BLOB}`, profile: 'demo' },
        headers: { prefer: 'wait=20' },
      });
      const outcome = (await started.json()) as { runId: string; status: string };
      expect(outcome.status).toBe('completed');
      // The placements reached the model and the journal as recorded.
      expect(leaks(JSON.stringify(models.requests.map((r) => r.body)))).toEqual(SHAPES.map((shape) => shape.name));
      const path = `/v1/runs/${encodeURIComponent(outcome.runId)}`;
      const raw = await (await call('GET', `${path}/journal?format=ndjson&raw=true`, { token: RAW })).text();
      expect(raw).toContain('model_call_complete');
      const views: Array<[string, string]> = [['run', JSON.stringify(outcome)]];
      for (const suffix of ['', '/journal', '/journal?format=ndjson', '/trace', '/otlp', '/events'])
        views.push([suffix || 'run', await (await call('GET', `${path}${suffix}`, { token: RAW })).text()]);
      views.push(['logs', lines.join('\n')]);
      views.push(['trace --json', await cugar(['trace', outcome.runId, '--json'], server.url)]);
      for (const [channel, text] of views) {
        expect(leaks(text), channel).toEqual([]);
        expect(text, channel).not.toContain(MODEL_KEY);
      }
      expect(raw).not.toContain(MODEL_KEY);
    } finally {
      await server.close();
      await models.close();
    }
  });
});
