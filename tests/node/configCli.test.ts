import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { EVERYTHING } from '../support/mcpFixtures.ts';
import { startModelServer } from '../support/modelServer.ts';

// `cugar config check` and `cugar serve` with a configuration file, as real processes.

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cugar-config-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

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

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const MODEL_KEY = 'model-key-value-0123456789';
const OTLP_KEY = 'otlp-key-value-0123456789';
const API_TOKEN = 'api-token-value-0123456789abcdef';

describe('cugar config check', () => {
  it('checks the sample by default and prints the effective configuration: exit 0, one JSON document with --json', async () => {
    const text = await cugar(['config', 'check']);
    expect(text.code).toBe(0);
    expect(text.stderr).toContain(`valid: ${join(root, 'configs/orchestrator.yaml')}`);
    expect(text.stdout).toContain('maxAttempts: 3');
    const json = await cugar(['config', 'check', '--json']);
    expect(json.code).toBe(0);
    const document = JSON.parse(json.stdout) as { ok: boolean; effective: { file: string; routing: unknown; retry: unknown } };
    expect(document).toMatchObject({
      ok: true,
      effective: { file: join(root, 'configs/orchestrator.yaml'), routing: { policy: 'round_robin', workerPoolSize: 1 } },
    });
  });

  it('lays the environment over the file and masks every secret it resolved', async () => {
    const path = file(
      'masked.yaml',
      [
        'planner:',
        '  max_steps: 7',
        'models:',
        '  url: http://127.0.0.1:9/v1',
        '  names: [m1]',
        '  api_key_env: TEST_MODEL_KEY',
        'otlp:',
        '  endpoint: http://127.0.0.1:9',
        '  headers: { x-api-key: "${env:TEST_OTLP_KEY}" }',
        'tokens:',
        '  - token_env: TEST_API_TOKEN',
        '    profiles: [demo]',
        '  - token_env: TEST_UNSET_TOKEN',
        'secrets:',
        '  SLACK_TOKEN: { secret_env: TEST_MODEL_KEY }',
        'mcp:',
        '  servers:',
        '    - name: remote',
        '      profile: demo',
        '      transport: { type: http, url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer ${env:TEST_OTLP_KEY}" } }',
      ].join('\n'),
    );
    const env = { TEST_MODEL_KEY: MODEL_KEY, TEST_OTLP_KEY: OTLP_KEY, TEST_API_TOKEN: API_TOKEN, PLANNER_MAX_STEPS: '3' };
    const result = await cugar(['config', 'check', '--file', path, '--json'], env);
    expect(result.code).toBe(0);
    for (const secret of [MODEL_KEY, OTLP_KEY, API_TOKEN]) expect(result.stdout + result.stderr).not.toContain(secret);
    const { effective, warnings } = JSON.parse(result.stdout) as { effective: Record<string, Record<string, unknown>>; warnings: string[] };
    expect(effective['config']!['plannerMaxSteps']).toBe(3);
    expect(effective['models']).toMatchObject({ url: 'http://127.0.0.1:9/v1', models: ['m1'], apiKey: '[REDACTED]' });
    expect(effective['otlp']).toMatchObject({ url: 'http://127.0.0.1:9/v1/traces', headers: { 'x-api-key': '[REDACTED]' } });
    expect(effective['tokens']).toEqual([{ from: 'TEST_API_TOKEN', profiles: ['demo'] }]);
    expect(effective['secrets']).toEqual(['SLACK_TOKEN']);
    expect(effective['mcp']).toMatchObject({ servers: [{ name: 'remote', transport: { type: 'http', headers: { Authorization: '[REDACTED]' } } }] });
    expect(warnings).toEqual([
      'tokens[1] — TEST_UNSET_TOKEN is not set; this token is left out',
      'mcp server remote — MCP server remote needs the network, which profile "demo" does not allow; it will be left out',
    ]);
  });

  it('lists every error with its line and key path and exits 2; a named file that does not exist is exit 3', async () => {
    const path = file(
      'bad.yaml',
      'retry:\n  max_attempts: "3"\n  bogus: 1\nmodels:\n  api_key: sk-proj-abcdefabcdefabcdef0123\nmcp:\n  servers:\n    - { name: x }\n',
    );
    const text = await cugar(['config', 'check', '--file', path]);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain(`invalid: ${path} (3 errors)`);
    expect(text.stderr).toContain('line 2, column 17: retry.max_attempts — Invalid input: expected number, received string');
    expect(text.stderr).toContain('line 3, column 3: retry.bogus — unknown key');
    expect(text.stderr).toContain('line 5, column 12: models.api_key — a secret written inline');
    expect(text.stderr).not.toContain('abcdefabcdef');
    const json = await cugar(['config', 'check', '--file', path, '--json']);
    expect(json.code).toBe(2);
    const document = JSON.parse(json.stdout) as { ok: boolean; errors: Array<{ path: string; line: number; code: string }> };
    expect(document.ok).toBe(false);
    expect(document.errors.map((e) => [e.path, e.line, e.code])).toEqual([
      ['retry.max_attempts', 2, 'invalid_type'],
      ['retry.bogus', 3, 'unknown_key'],
      ['models.api_key', 5, 'inline_secret'],
    ]);
    // MCP servers are checked as the host checks them, after the file's own keys.
    const mcp = await cugar(['config', 'check', '--file', file('mcp.yaml', 'mcp:\n  servers:\n    - name: x\n      profile: demo\n'), '--json']);
    expect(mcp.code).toBe(2);
    expect((JSON.parse(mcp.stdout) as { errors: Array<{ path: string; line: number }> }).errors[0]).toMatchObject({
      path: 'mcp.servers[0].transport',
      line: 3,
    });
    expect((await cugar(['config', 'check', '--file', join(dir, 'absent.yaml')])).code).toBe(3);
    expect((await cugar(['config', 'lint'])).code).toBe(2);
    // A broken file named by CUGAR_CONFIG stops `cugar serve` with the same errors.
    const serve = await cugar(['serve', '--port', '0', '--data-dir', join(dir, 'never')], { CUGAR_CONFIG: path });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('retry.bogus — unknown key');
  });
});

describe('the local commands with a configuration file', () => {
  it('run, runs and replay on a data directory take the budget, database file and worker pool of the file; a broken file stops them with exit 2', async () => {
    const data = ['--data-dir', join(dir, 'local-data')];
    const db = join(dir, 'local-elsewhere.db');
    const path = file('local.yaml', `audit:\n  db_path: ${db}\nrouting:\n  policy: load_balanced\n  worker_pool_size: 2\nbudget:\n  call_ceiling: 1\n`);
    const goal = 'add 2 and 3 then multiply the result by 4';
    // The file's call ceiling of one stops the second step: the run fails over budget.
    const limited = await cugar(['run', goal, '--json', ...data], { CUGAR_CONFIG: path });
    expect(limited.code).toBe(1);
    const outcome = JSON.parse(limited.stdout) as { runId: string; outputs: Record<string, number>; error?: { code: string } };
    expect(outcome.outputs).toEqual({ 'step-0': 5 });
    expect(outcome.error?.code).toBe('budget_exceeded');
    // The run is in the file's database, which only a command reading the file finds.
    expect(existsSync(db)).toBe(true);
    const listed = JSON.parse((await cugar(['runs', '--json', ...data], { CUGAR_CONFIG: path })).stdout) as Array<{ runId: string }>;
    expect(listed.map((r) => r.runId)).toEqual([outcome.runId]);
    const elsewhere = JSON.parse(
      (await cugar(['runs', '--json', ...data], { CUGAR_CONFIG: file('empty.yaml', 'retry:\n  max_attempts: 3\n') })).stdout,
    ) as unknown[];
    expect(elsewhere).toEqual([]);
    // The pool of two is recorded in the run's inputs, and the replay on the same directory agrees.
    const journal = (await cugar(['export', outcome.runId, ...data], { CUGAR_CONFIG: path })).stdout;
    expect(JSON.parse(journal.split('\n')[0]!)).toMatchObject({ data: { inputs: { parallel: 2 } } });
    expect(JSON.parse((await cugar(['replay', outcome.runId, '--json', ...data], { CUGAR_CONFIG: path })).stdout)).toMatchObject({ ok: true });
    const broken = await cugar(['runs', ...data], { CUGAR_CONFIG: file('broken.yaml', 'retry:\n  bogus: 1\n') });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('retry.bogus — unknown key');
  });
});

/** Start `cugar serve` and resolve with its URL once it listens. */
function serve(env: Record<string, string>, dataDir = join(dir, 'served')): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [join(root, 'src/cli/bin.mjs'), 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${stderr}`)), 30_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /CUGAr API and dashboard on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child, stderr: () => stderr });
      }
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${stderr}`)));
  });
}

describe('cugar serve with a configuration file', () => {
  it('applies tokens, retry, routing, budget and approvals from the file', async () => {
    const path = file(
      'serve.yaml',
      [
        'retry: { max_attempts: 5, base_delay: 0.05 }',
        'routing: { policy: load_balanced, worker_pool_size: 3 }',
        'budget: { call_ceiling: 40, warn_threshold: 0.5 }',
        'approval: { require_approval: [multiply] }',
        `audit: { db_path: "${join(dir, 'elsewhere', 'audit.db')}", retention_days: 30 }`,
        'tokens:',
        '  - token_env: TEST_API_TOKEN',
        '    profiles: "*"',
      ].join('\n'),
    );
    const { url, child, stderr } = await serve({ CUGAR_CONFIG: path, TEST_API_TOKEN: API_TOKEN });
    expect(stderr()).toContain(`configuration: ${path}`);
    expect(stderr()).not.toContain('local token');
    const call = (method: string, route: string, token: string, body?: unknown) =>
      fetch(new URL(route, url), {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'wait=20' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    expect((await call('GET', '/v1/runs', 'not-the-token-0123456789')).status).toBe(401);
    const added = (await (await call('POST', '/v1/runs', API_TOKEN, { goal: 'add 2 and 3', profile: 'demo' })).json()) as { runId: string; status: string };
    expect(added.status).toBe('completed');
    const { events: journal } = (await (await call('GET', `/v1/runs/${added.runId}/journal`, API_TOKEN)).json()) as {
      events: Array<{ type: string; data: Record<string, unknown> }>;
    };
    expect(journal[0]!.data.inputs).toMatchObject({ retry: { maxAttempts: 5, baseDelay: 50 }, budget: { callCeiling: 40, warnThreshold: 0.5 } });
    const route = journal.find((event) => event.type === 'route_decision')!;
    expect(route.data).toMatchObject({ policy: 'load_balanced', worker: expect.stringMatching(/^worker-[123]$/) });
    // `multiply` is on the file's require_approval list: the run stops for a person there.
    const multiplied = (await (await call('POST', '/v1/runs', API_TOKEN, { goal: 'multiply 6 by 7', profile: 'demo' })).json()) as { status: string };
    expect(multiplied.status).toBe('paused');
    // The database is where audit.db_path says.
    expect(existsSync(join(dir, 'elsewhere', 'audit.db'))).toBe(true);
    expect(existsSync(join(dir, 'served', 'cugar.db'))).toBe(false);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  });

  it('takes its model, its MCP servers and its OpenTelemetry export from the file, keys by reference', async () => {
    const models = await startModelServer([{ calls: [{ name: 'add', args: { a: 2, b: 3 } }] }, { text: 'The sum is 5.' }, { text: 'Added 2 and 3 with add.' }]);
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const port = (collector.address() as { port: number }).port;
    try {
      const path = file(
        'integrations.yaml',
        [
          'models:',
          `  url: ${models.url}`,
          '  names: [small]',
          '  api_key_env: TEST_MODEL_KEY',
          'otlp:',
          `  endpoint: http://127.0.0.1:${port}`,
          '  headers: { x-api-key: "${env:TEST_OTLP_KEY}" }',
          '  service_name: cugar-config-test',
          '  batch_delay: 0',
          'mcp:',
          '  servers:',
          `    - { name: everything, profile: demo, tools: [echo], transport: { type: stdio, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING)}, stdio] } }`,
          'profiles:',
          `  demo: { mcp: { commands: [${JSON.stringify(process.execPath)}] } }`,
          'tokens:',
          '  - token_env: TEST_API_TOKEN',
        ].join('\n'),
      );
      const { url, child, stderr } = await serve(
        { CUGAR_CONFIG: path, TEST_API_TOKEN: API_TOKEN, TEST_MODEL_KEY: MODEL_KEY, TEST_OTLP_KEY: OTLP_KEY },
        join(dir, 'integrations'),
      );
      const call = (method: string, route: string, body?: unknown) =>
        fetch(new URL(route, url), {
          method,
          headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json', prefer: 'wait=20' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      const tools = (await (await call('GET', '/v1/profiles/demo/tools')).json()) as { tools: Array<{ name: string }> };
      expect(tools.tools.map((tool) => tool.name)).toContain('everything_echo');
      const outcome = (await (await call('POST', '/v1/runs', { goal: 'what is 2 plus 3?', profile: 'demo' })).json()) as Record<string, unknown>;
      expect(outcome).toMatchObject({ status: 'completed', outputs: { answer: 'The sum is 5.' } });
      expect(models.requests.map((r) => [r.body.model, r.authorization])).toEqual([
        ['small', `Bearer ${MODEL_KEY}`],
        ['small', `Bearer ${MODEL_KEY}`],
        // The run's reflection, written by the model.
        ['small', `Bearer ${MODEL_KEY}`],
      ]);
      await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(received[0]!.headers['x-api-key']).toBe(OTLP_KEY);
      expect(received.map((r) => r.body).join('')).toContain('cugar-config-test');
      expect(stderr()).not.toContain(MODEL_KEY);
      expect(stderr()).not.toContain(OTLP_KEY);
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    } finally {
      await models.close();
      collector.close();
    }
  });
});
