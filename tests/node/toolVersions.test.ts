import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from '@babel/parser';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsOf, parseConfig, replay, type ApprovalPolicy, type JournalEvent, type Sandbox, type SandboxLimits } from '../../src/core/index.ts';
import { createApp } from '../../src/api/app.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { createNodeSandbox } from '../../src/edge/nodeSandbox.ts';
import { startServer } from '../../src/edge/nodeServer.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';

const ANA = 'ana-token-0123456789abcdef';
const OTHER = 'other-token-0123456789abcd';
const BASE = '/v1/profiles/demo/tools/word_tally/versions';

const V1 = 'export default function tally(input) { return { words: input.text.split(" ").filter(Boolean).length, version: 1 }; }';
const V2 = 'export default function tally(input) { return { words: input.text.split(" ").filter(Boolean).length * 10, version: 2 }; }';
// v2 costs more than v1: a replay that resolved the newer version would reserve differently and diverge.
const proposal = (source: string) => ({
  source,
  description: 'Count the words of a text',
  inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 1000 } }, required: ['text'], additionalProperties: false },
  meta: { cost: source === V2 ? 3 : 1, latency: 50, capabilities: [], idempotent: true },
});

/** The Node sandbox, counting each source's calls, so a test can tell which version ran. */
function countingSandbox(): { sandbox: Sandbox; calls: Map<string, number> } {
  const inner = createNodeSandbox();
  const calls = new Map<string, number>();
  return {
    calls,
    sandbox: {
      host: inner.host,
      close: () => inner.close(),
      load: async (source, options) => {
        const tool = await inner.load(source, options);
        return {
          id: tool.id,
          get starts() {
            return tool.starts;
          },
          close: () => tool.close(),
          call: (input, callOptions) => {
            calls.set(source, (calls.get(source) ?? 0) + 1);
            return tool.call(input, callOptions);
          },
        };
      },
    },
  };
}

const sandboxes: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
});

async function setup(withSandbox = true, limits?: SandboxLimits, approval?: ApprovalPolicy) {
  const counting = countingSandbox();
  sandboxes.push(counting.sandbox);
  const store = new SqliteStore(':memory:');
  const runtime = await createRuntime(store, parseConfig({}).config, {
    ...(withSandbox ? { toolVersions: { sandbox: counting.sandbox, parser: parse, ...(limits ? { limits } : {}) } } : {}),
    ...(approval ? { approval } : {}),
  });
  const app = createApp(runtime, { tokens: { [ANA]: ['demo'], [OTHER]: ['other'] }, rateLimit: { perSecond: 1000, burst: 5000 } });
  const call = async (method: string, path: string, body?: unknown, token = ANA) => {
    const response = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), prefer: 'wait=20' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string; message: string } } };
  };
  const run = async (text: string) => {
    const started = await call('POST', '/v1/runs', { goal: `tally the words of ${text}`, profile: 'demo', plan: [{ tool: 'word_tally', input: { text } }] });
    expect(started.status).toBe(200);
    const runId = started.body['runId'] as string;
    const journal = await runtime.store.readJournal(runId);
    expect(journal.at(-1)?.type).toBe('run_completed');
    return journal;
  };
  return { runtime, call, run, calls: counting.calls };
}

const hashOf = (response: { body: Record<string, unknown> }) => (response.body['version'] as { hash: string }).hash;
const recordedVersions = (journal: readonly JournalEvent[]) => (journal[0]!.type === 'stage' ? journal[0]!.data.inputs?.toolVersions : undefined);
const outputOf = (journal: readonly JournalEvent[]) => eventsOf(journal, 'tool_call_complete')[0]?.data.output;

describe('tools written at run time', () => {
  it('refuses a source the patch auditor refuses, listing every finding, and keeps nothing', async () => {
    const { call } = await setup();
    const refused = await call('POST', BASE, proposal('export default (input) => { fetch("http://example.com"); return eval(input.code); }'));
    expect(refused.status).toBe(422);
    expect(refused.body.error?.code).toBe('audit_failed');
    const findings = refused.body['findings'] as Array<{ rule: string; line: number }>;
    expect(findings.length).toBeGreaterThanOrEqual(2);
    expect(findings.map((f) => f.rule)).toEqual(expect.arrayContaining(['dynamic_code']));
    expect((await call('GET', BASE)).body['versions']).toEqual([]);
    // A schema that is not an object schema, and a shipped tool's name, are refused before any audit.
    expect((await call('POST', BASE, { ...proposal(V1), inputSchema: { type: 'string' } })).status).toBe(400);
    expect((await call('POST', '/v1/profiles/demo/tools/echo/versions', proposal(V1))).body.error?.code).toBe('tool_name_taken');
  });

  it('proposes, waits for approval, runs the approved version and journals its hash; a newer version leaves old replays identical; rollback', async () => {
    const { runtime, call, run, calls } = await setup();
    const proposed = await call('POST', BASE, proposal(V1));
    expect(proposed.status).toBe(202);
    const v1 = hashOf(proposed);
    expect(v1).toMatch(/^[0-9a-f]{64}$/);
    expect(proposed.body).toMatchObject({ version: { status: 'proposed', name: 'word_tally' }, audit: { ok: true }, approval: { status: 'pending' } });
    // Not approved yet: runs do not see it, and it cannot be activated around the approval.
    expect(runtime.toolVersions?.active('demo')).toEqual({});
    expect((await call('POST', `${BASE}/${v1}/activate`)).body.error?.code).toBe('approval_required');
    const approved = await call('POST', `${BASE}/${v1}/approve`);
    expect(approved).toMatchObject({ status: 200, body: { status: 'active', approvedBy: expect.stringMatching(/^principal:[0-9a-f]{16}$/) } });
    expect((await call('POST', `${BASE}/${v1}/approve`)).status).toBe(409);
    // Listed beside the shipped tools in its active version, and planned in dry runs.
    const listed = (await call('GET', '/v1/profiles/demo/tools')).body['tools'] as Array<{ name: string; capabilities: string[]; cost: number }>;
    expect(listed.find((tool) => tool.name === 'word_tally')).toMatchObject({ capabilities: ['sandbox'], cost: 1 });
    expect(listed.map((tool) => tool.name)).toContain('echo');
    const dry = await call('POST', '/v1/plan', { goal: 'tally the words of "a b"', profile: 'demo' });
    expect(JSON.stringify(dry.body)).toContain('word_tally');

    const first = await run('one two three');
    expect(recordedVersions(first)).toEqual({ word_tally: v1 });
    expect(outputOf(first)).toEqual({ words: 3, version: 1 });
    expect(calls.get(V1)).toBe(1);

    const v2 = hashOf(await call('POST', BASE, proposal(V2)));
    expect(v2).not.toBe(v1);
    await call('POST', `${BASE}/${v2}/approve`);
    const second = await run('one two three');
    expect(recordedVersions(second)).toEqual({ word_tally: v2 });
    expect(outputOf(second)).toEqual({ words: 30, version: 2 });

    // The old run replays hash for hash against v1's recorded metadata; no tool code runs.
    const before = new Map(calls);
    expect(before.get(V2)).toBe(1);
    const replayed = await replay(first, runtime.registry, { toolVersions: runtime.toolVersions! });
    expect(replayed).toMatchObject({ ok: true, events: first.length, head: { hash: first.at(-1)!.hash } });
    expect(calls).toEqual(before);
    // Resolving whatever is active now instead (v2, which costs more) would diverge: the hash is what keeps it exact.
    const versions = runtime.toolVersions!;
    const activeNow = { active: (p: string) => versions.active(p), spec: (p: string, n: string) => versions.spec(p, n, versions.active(p)[n]!) };
    expect(await replay(first, runtime.registry, { toolVersions: activeNow })).toMatchObject({ ok: false });
    // A fork keeps the source's inputs, so it runs the version the source recorded (live, past its fork point).
    const fork = await call('POST', `/v1/runs/${first[0]!.runId}/forks`, { at: 0, edit: { kind: 'goal', goal: 'tally the words again' } });
    expect(fork.status).toBe(201);
    const forked = await runtime.store.readJournal(fork.body['runId'] as string);
    expect(recordedVersions(forked)).toEqual({ word_tally: v1 });
    expect(outputOf(forked)).toEqual({ words: 3, version: 1 });
    // Without the versions it recorded, a replay refuses instead of resolving another version.
    await expect(replay(first, runtime.registry)).rejects.toMatchObject({ code: 'unknown_tool_version' });

    const history = await call('GET', BASE);
    expect(history.body['active']).toBe(v2);
    expect((history.body['versions'] as Array<{ hash: string; status: string }>).map((v) => [v.hash, v.status])).toEqual([
      [v2, 'active'],
      [v1, 'retired'],
    ]);
    expect((history.body['trail'] as Array<{ type: string }>).map((e) => e.type)).toEqual(
      expect.arrayContaining(['tool_proposed', 'tool_registered', 'tool_activated']),
    );

    // Roll back to v1: re-audited, no second approval; new runs use v1 again.
    expect(await call('POST', `${BASE}/${v1}/activate`)).toMatchObject({ status: 200, body: { hash: v1, status: 'active' } });
    const third = await run('a b');
    expect(recordedVersions(third)).toEqual({ word_tally: v1 });
    expect(outputOf(third)).toEqual({ words: 2, version: 1 });
    expect((await replay(second, runtime.registry, { toolVersions: runtime.toolVersions! })).ok).toBe(true);
  });

  it('a run paused before a newer version was activated resumes with the version it recorded', async () => {
    const { runtime, call } = await setup();
    const v1 = hashOf(await call('POST', BASE, proposal(V1)));
    await call('POST', `${BASE}/${v1}/approve`);
    const plan = [
      { tool: 'send_message', input: { to: 'ops', text: 'counting' } },
      { tool: 'word_tally', input: { text: 'one two' } },
    ];
    const paused = await call('POST', '/v1/runs', { goal: 'tell ops, then tally', profile: 'demo', plan });
    expect(paused.body['status']).toBe('paused');
    const v2 = hashOf(await call('POST', BASE, proposal(V2)));
    await call('POST', `${BASE}/${v2}/approve`);
    const approvalId = (paused.body['pendingApproval'] as { approvalId: string }).approvalId;
    expect((await call('POST', `/v1/approvals/${approvalId}`, { decision: 'approve' })).body['status']).toBe('completed');
    const journal = await runtime.store.readJournal(paused.body['runId'] as string);
    expect(recordedVersions(journal)).toEqual({ word_tally: v1 });
    expect(eventsOf(journal, 'tool_call_complete').map((e) => e.data.output)).toContainEqual({ words: 2, version: 1 });
  });

  it('a person edits the input of a call to a versioned tool held for approval; it is checked against the recorded version', async () => {
    const { call } = await setup(true, undefined, { requires: ({ tool }) => tool.name === 'word_tally' });
    const v1 = hashOf(await call('POST', BASE, proposal(V1)));
    await call('POST', `${BASE}/${v1}/approve`);
    const paused = await call('POST', '/v1/runs', { goal: 'tally', profile: 'demo', plan: [{ tool: 'word_tally', input: { text: 'a b' } }] });
    expect(paused.body['status']).toBe('paused');
    const approvalId = (paused.body['pendingApproval'] as { approvalId: string }).approvalId;
    // The version's schema refuses an input it does not take; then a good edit runs.
    expect((await call('POST', `/v1/approvals/${approvalId}`, { decision: 'edit', args: { text: 5 } })).status).toBe(400);
    const edited = await call('POST', `/v1/approvals/${approvalId}`, { decision: 'edit', args: { text: 'a b c d' } });
    expect(edited.body).toMatchObject({ status: 'completed', outputs: { 'step-0': { words: 4, version: 1 } } });
  });

  it('plans a goal with an approved tool, and not with one still waiting for approval', async () => {
    const { runtime, call } = await setup();
    const reverse = {
      source: 'export default (input) => ({ reversed: input.text.split("").reverse().join("") })',
      description: 'Reverse the letters of a text',
      inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'the text to reverse' } }, required: ['text'] },
    };
    const hash = hashOf(await call('POST', '/v1/profiles/demo/tools/reverse_text/versions', reverse));
    const goal = 'reverse the text "hello world"';
    expect((await runtime.orchestrator.start(goal, 'demo')).outputs).not.toEqual({ 'step-0': { reversed: 'dlrow olleh' } });
    await call('POST', `/v1/profiles/demo/tools/reverse_text/versions/${hash}/approve`);
    const outcome = await runtime.orchestrator.start(goal, 'demo');
    expect(outcome).toMatchObject({ status: 'completed', outputs: { 'step-0': { reversed: 'dlrow olleh' } } });
  });

  it('stops a version that runs past its time limit with a typed error, and the host goes on', async () => {
    const { call, run } = await setup(true, { timeoutMs: 300 });
    const slow = 'export default function handler(input) { let total = 0; for (let i = 0; i < 1e12; i++) total += i; return { total, text: input.text }; }';
    const hash = hashOf(await call('POST', BASE, proposal(slow)));
    await call('POST', `${BASE}/${hash}/approve`);
    const stopped = await run('x');
    const errors = eventsOf(stopped, 'tool_call_error');
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors.every((e) => e.data.error.code === 'timeout')).toBe(true);
    expect(eventsOf(stopped, 'run_completed')[0]?.data.success).toBe(false);
    // Roll forward to a version that answers: the same host runs it at once.
    const fixed = hashOf(await call('POST', BASE, proposal(V1)));
    await call('POST', `${BASE}/${fixed}/approve`);
    expect(outputOf(await run('x y'))).toEqual({ words: 2, version: 1 });
  });

  it('refuses input schemas it cannot check inputs against, and keeps nothing', async () => {
    const { call } = await setup();
    for (const inputSchema of [{ type: 'object', properties: { a: { $ref: 'https://example.com/schema' } } }, { type: 'object', properties: 'text' }, []]) {
      const refused = await call('POST', BASE, { ...proposal(V1), inputSchema });
      expect(refused.status).toBe(400);
    }
    expect((await call('POST', BASE, { ...proposal(V1), extra: true })).status).toBe(400);
    expect((await call('POST', BASE, { ...proposal(V1), source: 'x'.repeat(100_001) })).status).toBe(400);
    expect((await call('GET', BASE)).body['versions']).toEqual([]);
  });

  it("keeps versions in the host's store: a new runtime over the same store resumes them", async () => {
    const { runtime, call } = await setup();
    const v1 = hashOf(await call('POST', BASE, proposal(V1)));
    await call('POST', `${BASE}/${v1}/approve`);
    const counting = countingSandbox();
    sandboxes.push(counting.sandbox);
    const again = await createRuntime(runtime.store, parseConfig({}).config, { toolVersions: { sandbox: counting.sandbox, parser: parse } });
    expect(again.toolVersions?.active('demo')).toEqual({ word_tally: v1 });
    expect((await again.toolVersions!.history('demo', 'word_tally'))[0]).toMatchObject({ hash: v1, status: 'active' });
  });

  it("another profile's token can neither see nor propose", async () => {
    const { call } = await setup();
    const v1 = hashOf(await call('POST', BASE, proposal(V1)));
    expect((await call('GET', BASE, undefined, OTHER)).status).toBe(403);
    expect((await call('POST', BASE, proposal(V2), OTHER)).status).toBe(403);
    expect((await call('POST', `${BASE}/${v1}/approve`, undefined, OTHER)).status).toBe(403);
    expect((await call('POST', `${BASE}/${v1}/activate`, undefined, OTHER)).status).toBe(403);
    // Its own profile has no such tool history, and no profile it cannot name.
    expect((await call('GET', '/v1/profiles/other/tools/word_tally/versions', undefined, OTHER)).status).toBe(404);
  });

  it('a host without a sandbox (the Worker) refuses with unsupported_host', async () => {
    const { call } = await setup(false);
    const refused = await call('POST', BASE, proposal(V1));
    expect(refused).toMatchObject({ status: 501, body: { error: { code: 'unsupported_host' } } });
    expect((await call('GET', BASE)).status).toBe(501);
  });

  it('the Node host keeps versions in its data directory, and `cugar replay` there resolves the recorded one', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cugar-tool-versions-'));
    try {
      const server = await startServer({ port: 0, dataDir: dir, corpusDir: join(dir, 'none'), log: () => undefined });
      const http = async (method: string, path: string, body?: unknown) =>
        (await (
          await fetch(`${server.url}${path}`, {
            method,
            headers: { authorization: `Bearer ${server.localToken}`, 'content-type': 'application/json', prefer: 'wait=20' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          })
        ).json()) as Record<string, unknown>;
      const v1 = hashOf({ body: await http('POST', BASE, proposal(V1)) });
      await http('POST', `${BASE}/${v1}/approve`);
      const outcome = await http('POST', '/v1/runs', { goal: 'tally', profile: 'demo', plan: [{ tool: 'word_tally', input: { text: 'x y' } }] });
      expect(outcome['outputs']).toEqual({ 'step-0': { words: 2, version: 1 } });
      const v2 = hashOf({ body: await http('POST', BASE, proposal(V2)) });
      await http('POST', `${BASE}/${v2}/approve`);
      await server.close();
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(import.meta.dirname, '..', '..', 'src/cli/bin.mjs'), 'replay', outcome['runId'] as string, '--json', '--data-dir', dir],
        { env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 },
      );
      expect(JSON.parse(stdout)).toMatchObject({ ok: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
