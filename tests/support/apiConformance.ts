import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, ToolRegistry, exportJournal, registerBuiltinTools, verifyJournal, type JournalEvent } from '../../src/core/index.ts';
import { createSequentialIds, sealEvent } from '../../src/core/testing.ts';
import { z } from 'zod';

export const ADMIN = 'admin-token-0123456789abcdef';
export const DEMO = 'demo-token-0123456789abcdef';
export const OTHER = 'other-token-0123456789abcdef';
/** The tokens every host under test is configured with. */
export const TOKENS = `${ADMIN}=*;${DEMO}=demo;${OTHER}=other`;

/** Ask `POST /v1/runs` to answer with the outcome (waiting up to 20 s) instead of 202 Accepted. */
export const WAIT = { prefer: 'wait=20' } as const;

export type Call = (method: string, path: string, init?: { token?: string | null; body?: unknown; headers?: Record<string, string> }) => Promise<Response>;

/** Build a {@link Call} over any fetch-like function (an in-process app, or a real server). */
export function caller(fetcher: (path: string, init: RequestInit) => Promise<Response>): Call {
  return (method, path, init = {}) =>
    fetcher(path, {
      method,
      headers: {
        ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? DEMO}` }),
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
    });
}

/**
 * The API conformance suite: the same requests and expectations for every host (the Node
 * host in process, and the Cloudflare Worker in workerd). Hosts are configured with
 * {@link TOKENS} and the built-in tools of the `demo` profile.
 */
export function describeApiConformance(name: string, start: () => Promise<{ call: Call; close(): Promise<void> }>): void {
  describe(`API conformance: ${name}`, () => {
    let call: Call;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ call, close } = await start());
    }, 120_000);
    afterAll(async () => close?.());

    it('serves health and an OpenAPI document generated from the schemas', async () => {
      expect(await (await call('GET', '/v1/health', { token: null })).json()).toEqual({ status: 'ok', version: '0.1.0' });
      const doc = (await (await call('GET', '/openapi.json', { token: null })).json()) as { openapi: string; paths: Record<string, unknown> };
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining(['/v1/runs', '/v1/runs/{runId}', '/v1/approvals/{approvalId}', '/v1/ingest', '/v1/query', '/v1/plan']),
      );
    });

    it('lists tools, plans a dry run, runs a goal, and exposes journal, trace, OTLP and audit', async () => {
      const tools = (await (await call('GET', '/v1/profiles/demo/tools')).json()) as { tools: Array<{ name: string }> };
      expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['add', 'rag_query', 'send_message']));
      const plan = (await (await call('POST', '/v1/plan', { body: { goal: 'add 2 and 3', profile: 'demo' } })).json()) as {
        steps: unknown[];
        candidates: unknown[];
      };
      expect(plan.steps).toHaveLength(1);
      expect(plan.candidates.length).toBeGreaterThan(1);
      const run = (await (
        await call('POST', '/v1/runs', { body: { goal: 'add 2 and 3 then multiply the result by 4', profile: 'demo' }, headers: WAIT })
      ).json()) as { runId: string };
      expect(run).toMatchObject({ status: 'completed', outputs: { 'step-0': 5, 'step-1': 20 } });
      const journal = (await (await call('GET', `/v1/runs/${run.runId}/journal`)).json()) as { events: JournalEvent[] };
      expect(verifyJournal(journal.events).ok).toBe(true);
      const ndjson = await (await call('GET', `/v1/runs/${run.runId}/journal?format=ndjson`)).text();
      expect(ndjson.trim().split('\n')).toHaveLength(journal.events.length);
      const trace = (await (await call('GET', `/v1/runs/${run.runId}/trace`)).json()) as { records: unknown[] };
      expect(trace.records.length).toBe(journal.events.length);
      const otlp = (await (await call('GET', `/v1/runs/${run.runId}/otlp`)).json()) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; traceId: string; spanId: string; attributes: Array<{ key: string }> }> }> }>;
      };
      const spans = otlp.resourceSpans[0]!.scopeSpans[0]!.spans;
      expect(spans.map((s) => s.name).filter((name) => !name.startsWith('stage '))).toEqual(['invoke_agent demo', 'execute_tool add', 'execute_tool multiply']);
      expect(spans.filter((s) => s.name.startsWith('stage ')).length).toBe(6);
      expect(spans.every((s) => /^[0-9a-f]{32}$/.test(s.traceId) && /^[0-9a-f]{16}$/.test(s.spanId))).toBe(true);
      expect(spans.find((s) => s.name === 'execute_tool add')!.attributes.map((a) => a.key)).toContain('gen_ai.tool.name');
      expect(await (await call('GET', `/v1/audit/runs/${run.runId}`)).json()).toMatchObject({ ok: true });
      expect(await (await call('GET', '/v1/audit')).json()).toMatchObject({ ok: true });
      const listed = (await (await call('GET', '/v1/runs?status=completed')).json()) as { runs: Array<{ runId: string }> };
      expect(listed.runs.map((r) => r.runId)).toContain(run.runId);
    });

    it('filters runs by tool and time, and reports run and profile budgets with warnings before the ceiling', async () => {
      const run = (await (
        await call('POST', '/v1/runs', {
          body: { goal: 'add 2 and 3 then multiply the result by 4', profile: 'demo', budget: { callCeiling: 2 } },
          headers: WAIT,
        })
      ).json()) as { runId: string; createdAt?: number; usage: { calls: number }; budget: { run: { callCeiling: number; warnThreshold: number } } };
      expect(run).toMatchObject({ status: 'completed', usage: { calls: 2 }, budget: { run: { callCeiling: 2, warnThreshold: 0.8 } } });
      const trace = (await (await call('GET', `/v1/runs/${run.runId}/trace`)).json()) as { records: Array<{ type: string; data: Record<string, unknown> }> };
      expect(trace.records.filter((r) => r.type === 'budget_warning').map((r) => r.data['dimensions'])).toEqual([['calls']]);
      const listed = async (query: string) =>
        ((await (await call('GET', `/v1/runs?${query}`)).json()) as { runs: Array<{ runId: string; tools?: string[]; createdAt: number }> }).runs;
      const mine = (await listed('tool=multiply')).find((r) => r.runId === run.runId)!;
      expect(mine.tools).toEqual(['add', 'multiply']);
      expect((await listed('tool=send_message')).map((r) => r.runId)).not.toContain(run.runId);
      expect((await listed(`since=${mine.createdAt}&until=${mine.createdAt + 1}`)).map((r) => r.runId)).toContain(run.runId);
      expect((await listed(`since=${mine.createdAt + 1}`)).map((r) => r.runId)).not.toContain(run.runId);
      expect((await listed(`until=${mine.createdAt}`)).map((r) => r.runId)).not.toContain(run.runId);
      expect((await call('GET', '/v1/runs?since=yesterday')).status).toBe(400);
      const budget = (await (await call('GET', '/v1/profiles/demo/budget')).json()) as { profile: string; usage: { calls: number } };
      expect(budget.profile).toBe('demo');
      expect(budget.usage.calls).toBeGreaterThanOrEqual(2);
      expect((await call('GET', '/v1/profiles/demo/budget', { token: OTHER })).status).toBe(403);
      // A profile without tools is unknown for its budget as for its tools.
      expect([
        (await call('GET', '/v1/profiles/nope/budget', { token: ADMIN })).status,
        (await call('GET', '/v1/profiles/nope/tools', { token: ADMIN })).status,
      ]).toEqual([404, 404]);
    });

    it('accepts a run at once with 202, its Location and events URL, and streams its events until run_completed', async () => {
      const response = await call('POST', '/v1/runs', { body: { goal: 'wait(ms=1500); add(a=2, b=3)', profile: 'demo' } });
      expect(response.status).toBe(202);
      const accepted = (await response.json()) as { runId: string; traceId: string; status: string; links: { self: string; events: string } };
      expect(accepted).toEqual({
        runId: accepted.runId,
        traceId: expect.any(String),
        status: 'running',
        links: { self: `/v1/runs/${accepted.runId}`, events: `/v1/runs/${accepted.runId}/events` },
      });
      expect(response.headers.get('location')).toBe(accepted.links.self);
      // Answered before the run finished: the run is durable and still going.
      expect(await (await call('GET', accepted.links.self)).json()).toMatchObject({ runId: accepted.runId, traceId: accepted.traceId, status: 'running' });
      const stream = await call('GET', accepted.links.events, { headers: { accept: 'text/event-stream' } });
      expect(stream.headers.get('content-type')).toContain('text/event-stream');
      const text = await stream.text();
      const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i));
      expect([...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]).at(-1)).toBe('run_completed');
      expect(await (await call('GET', accepted.links.self)).json()).toMatchObject({ status: 'completed', outputs: { 'step-1': 5 } });
      const waited = await call('POST', '/v1/runs?wait=20', { body: { goal: 'add 2 and 5', profile: 'demo' } });
      expect(waited.status).toBe(200);
      expect(await waited.json()).toMatchObject({ status: 'completed', outputs: { 'step-0': 7 } });
      expect((await call('POST', '/v1/runs', { body: { goal: 'add 1 and 1', profile: 'ghost' } })).status).toBe(403);
      expect((await call('POST', '/v1/runs', { token: ADMIN, body: { goal: 'add 1 and 1', profile: 'ghost' } })).status).toBe(404);
    });

    it('starts a run under a caller-chosen id, which can be followed while it runs; refuses a taken or malformed id', async () => {
      const runId = `run_chosen_${Date.now().toString(36)}`;
      const started = await call('POST', '/v1/runs', { body: { goal: 'add 1 and 2', profile: 'demo', runId }, headers: WAIT });
      expect(started.status).toBe(200);
      expect(started.headers.get('preference-applied')).toBe('wait=20');
      expect(await started.json()).toMatchObject({ runId, status: 'completed', outputs: { 'step-0': 3 } });
      const again = await call('POST', '/v1/runs', { body: { goal: 'add 1 and 2', profile: 'demo', runId } });
      expect(again.status).toBe(409);
      expect(((await again.json()) as { error: { code: string } }).error.code).toBe('run_exists');
      for (const bad of ['short', 'has space here', '-leading-dash', 'x'.repeat(200)])
        expect((await call('POST', '/v1/runs', { body: { goal: 'add 1 and 2', profile: 'demo', runId: bad } })).status).toBe(400);
      expect(
        (await call('POST', '/v1/runs', { body: { goal: 'add 1 and 2', profile: 'demo', runId: `${runId}-2` }, headers: { 'idempotency-key': 'k-chosen' } }))
          .status,
      ).toBe(400);
      expect((await call('GET', `/v1/runs/${runId}-2`)).status).toBe(404);
    });

    it('imports a journal exported by another host; refuses a duplicate, a tampered copy and a foreign profile', async () => {
      const registry = new ToolRegistry();
      registerBuiltinTools(registry, 'demo');
      const elsewhere = new InMemoryStore();
      const outcome = await new Orchestrator({ registry, store: elsewhere, ids: createSequentialIds(`elsewhere-${Date.now()}`) }).start('add 4 and 5', 'demo');
      const ndjson = exportJournal(await elsewhere.readJournal(outcome.runId));
      const lines = ndjson.trim().split('\n');
      const tampered = [...lines.slice(0, 2), lines[2]!.replace(/"at":(\d+)/, (_, at: string) => `"at":${Number(at) + 1}`), ...lines.slice(3)].join('\n');
      const bad = await call('POST', '/v1/journals', { body: { journal: tampered } });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('journal_invalid');
      expect((await call('POST', '/v1/journals', { token: OTHER, body: { journal: ndjson } })).status).toBe(403);
      expect((await call('GET', `/v1/runs/${outcome.runId}`)).status).toBe(404);
      const imported = await call('POST', '/v1/journals', { body: { journal: ndjson } });
      expect(imported.status).toBe(200);
      expect(await imported.json()).toEqual({ runId: outcome.runId, events: lines.length });
      expect(await (await call('GET', `/v1/runs/${outcome.runId}`)).json()).toMatchObject({ status: 'completed', outputs: { 'step-0': 9 } });
      expect(await (await call('GET', `/v1/audit/runs/${outcome.runId}`)).json()).toMatchObject({ ok: true });
      expect((await call('POST', '/v1/journals', { body: { journal: ndjson } })).status).toBe(409);
    });

    it('refuses a forged journal of another profile that reuses a pending approval id; the owner still decides it', async () => {
      const paused = (await (
        await call('POST', '/v1/runs', { body: { goal: 'send_message(to="ops", text="from alice")', profile: 'demo' }, headers: WAIT })
      ).json()) as { runId: string; pendingApproval: { approvalId: string } };
      const stolenId = paused.pendingApproval.approvalId;
      // The thief's own paused run in its own profile, its approval renamed to the victim's and re-sealed.
      const registry = new ToolRegistry();
      registry.register('other', 'wire', {
        description: 'wire money',
        parameters: z.object({ amount: z.number() }),
        requiresApproval: true,
        handler: () => 'sent',
      });
      const elsewhere = new InMemoryStore();
      const theirs = await new Orchestrator({ registry, store: elsewhere, ids: createSequentialIds(`thief-${Date.now()}`) }).start('wire(amount=5)', 'other');
      const forged: JournalEvent[] = [];
      for (const event of await elsewhere.readJournal(theirs.runId)) {
        const data = JSON.parse(JSON.stringify(event.data).replaceAll(theirs.pendingApproval!.approvalId, stolenId)) as never;
        forged.push(sealEvent(forged.at(-1), event.runId, event.type, event.at, data) as JournalEvent);
      }
      const attempt = await call('POST', '/v1/journals', { token: OTHER, body: { journal: exportJournal(forged) } });
      expect(attempt.status).toBe(409);
      expect(((await attempt.json()) as { error: { code: string } }).error.code).toBe('approval_id_taken');
      expect((await call('GET', `/v1/runs/${theirs.runId}`, { token: OTHER })).status).toBe(404);
      const list = (await (await call('GET', '/v1/approvals?status=pending&profile=demo')).json()) as {
        approvals: Array<{ approvalId: string; runId: string }>;
      };
      expect(list.approvals).toContainEqual(expect.objectContaining({ approvalId: stolenId, runId: paused.runId }));
      const done = await call('POST', `/v1/approvals/${encodeURIComponent(stolenId)}`, { body: { decision: 'approve' } });
      expect(await done.json()).toMatchObject({ runId: paused.runId, status: 'completed' });
    });

    it("answers another profile's run or approval exactly as one that does not exist; records who decided as the token", async () => {
      const paused = (await (
        await call('POST', '/v1/runs', { body: { goal: 'send_message(to="ops", text="who decides")', profile: 'demo' }, headers: WAIT })
      ).json()) as { runId: string; pendingApproval: { approvalId: string } };
      const foreign = await call('GET', `/v1/runs/${paused.runId}`, { token: OTHER });
      const missing = await call('GET', '/v1/runs/run_does_not_exist_0001', { token: OTHER });
      expect([foreign.status, missing.status]).toEqual([404, 404]);
      expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe(((await missing.json()) as { error: { code: string } }).error.code);
      for (const path of ['journal', 'trace', 'otlp', 'events'])
        expect((await call('GET', `/v1/runs/${paused.runId}/${path}`, { token: OTHER })).status, path).toBe(404);
      const id = encodeURIComponent(paused.pendingApproval.approvalId);
      expect((await call('POST', `/v1/approvals/${id}`, { token: OTHER, body: { decision: 'approve' } })).status).toBe(404);
      expect((await call('POST', `/v1/approvals/${id}`, { body: { decision: 'approve', principal: 'token:admin' } })).status).toBe(400);
      const done = await call('POST', `/v1/approvals/${id}`, { body: { decision: 'approve', by: 'Ada Lovelace' } });
      expect(done.status).toBe(200);
      const [approval] = (
        (await (await call('GET', `/v1/approvals?profile=demo&status=approved`)).json()) as { approvals: Array<Record<string, unknown>> }
      ).approvals.filter((a) => a['approvalId'] === paused.pendingApproval.approvalId);
      expect(approval).toMatchObject({ decidedBy: 'Ada Lovelace', decidedByPrincipal: expect.stringMatching(/^token:/) });
      expect(approval!['decidedByPrincipal']).not.toBe('token:Ada Lovelace');
    });

    it('refuses bodies nested thousands of levels deep with a clear 400, storing nothing', async () => {
      let deep: unknown = 'bottom';
      for (let i = 0; i < 3000; i++) deep = { d: deep };
      const before = ((await (await call('GET', '/v1/runs?profile=demo&limit=1000')).json()) as { runs: unknown[] }).runs.length;
      for (const [path, body] of [
        ['/v1/runs', { goal: 'add 1 and 2', profile: 'demo', metadata: { deep } }],
        ['/v1/runs', { goal: 'echo it', profile: 'demo', plan: [{ tool: 'echo', input: { text: deep } }] }],
        ['/v1/memory/facts', { profile: 'demo', namespace: 'notes', value: deep }],
      ] as const) {
        const response = await call('POST', path, { body });
        expect(response.status, path).toBe(400);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('too_deep');
      }
      expect(((await (await call('GET', '/v1/runs?profile=demo&limit=1000')).json()) as { runs: unknown[] }).runs).toHaveLength(before);
      // Ordinary nesting is fine.
      let shallow: unknown = 1;
      for (let i = 0; i < 20; i++) shallow = [shallow];
      expect((await call('POST', '/v1/memory/facts', { body: { profile: 'demo', namespace: 'notes', value: shallow } })).status).toBe(200);
    });

    it('pauses for approval, lists it, and continues after the decision', async () => {
      const paused = (await (
        await call('POST', '/v1/runs', { body: { goal: 'send_message(to="ops", text="deploy finished")', profile: 'demo' }, headers: WAIT })
      ).json()) as { runId: string; status: string; pendingApproval: { approvalId: string } };
      expect(paused.status).toBe('paused');
      const id = encodeURIComponent(paused.pendingApproval.approvalId);
      const list = (await (await call('GET', '/v1/approvals?status=pending')).json()) as { approvals: Array<{ approvalId: string }> };
      expect(list.approvals.map((a) => a.approvalId)).toContain(paused.pendingApproval.approvalId);
      expect((await call('POST', `/v1/approvals/${id}`, { body: { decision: 'edit', args: { to: '', text: 'x' } } })).status).toBe(400);
      const done = await call('POST', `/v1/approvals/${id}`, { body: { decision: 'approve', reason: 'ok' } });
      expect(await done.json()).toMatchObject({ status: 'completed', outputs: { 'step-0': { queued: true, to: 'ops' } } });
      expect((await call('POST', `/v1/approvals/${id}`, { body: { decision: 'approve' } })).status).toBe(409);
      expect((await call('POST', `/v1/runs/${paused.runId}/resume`)).status).toBe(409);
      const outbox = (await (await call('GET', '/v1/memory/facts?profile=demo&namespace=outbox')).json()) as { facts: Array<{ value: { text: string } }> };
      expect(outbox.facts.map((f) => f.value.text)).toContain('deploy finished');
    });

    it('ingests with progress events and answers queries', async () => {
      const stream = await call('POST', '/v1/ingest', {
        body: {
          profile: 'demo',
          documents: [
            { path: 'bees-c.md', text: 'Varroa mites weaken honey bee colonies.' },
            { path: 'tea-c.txt', text: 'Oolong tea is steeped several times.' },
          ],
        },
        headers: { accept: 'text/event-stream' },
      });
      const text = await stream.text();
      expect(text.match(/event: progress/g)).toHaveLength(2);
      expect(text).toContain('event: done');
      const hits = (await (await call('POST', '/v1/query', { body: { profile: 'demo', query: 'varroa mites', k: 2 } })).json()) as {
        hits: Array<{ path: string }>;
      };
      expect(hits.hits[0]!.path).toBe('bees-c.md');
      expect((await call('POST', '/v1/ingest', { body: { profile: 'demo', documents: [{ path: 'x.txt', text: '' }] } })).status).toBe(400);
      expect((await call('GET', '/v1/memory/facts?profile=demo&namespace=nothing-here')).status).toBe(404);
    });

    it('refuses missing, wrong and other-profile tokens', async () => {
      for (const [method, path, body] of [
        ['GET', '/v1/profiles/demo/tools', undefined],
        ['POST', '/v1/plan', { goal: 'add 1 and 2', profile: 'demo' }],
        ['POST', '/v1/runs', { goal: 'add 1 and 2', profile: 'demo' }],
        ['POST', '/v1/query', { profile: 'demo', query: 'x' }],
        ['GET', '/v1/memory/facts?profile=demo', undefined],
      ] as const) {
        expect((await call(method, path, { token: null, ...(body ? { body } : {}) })).status, `${path} without a token`).toBe(401);
        expect((await call(method, path, { token: 'not-a-real-token-at-all', ...(body ? { body } : {}) })).status, `${path} wrong token`).toBe(401);
        expect((await call(method, path, { token: OTHER, ...(body ? { body } : {}) })).status, `${path} other profile`).toBe(403);
      }
      const mine = (await (await call('GET', '/v1/runs', { token: OTHER })).json()) as { runs: unknown[] };
      expect(mine.runs).toEqual([]);
    });

    it('makes one run for 50 concurrent duplicates of an Idempotency-Key, and 422 for a different body', async () => {
      const body = { goal: 'add 4 and 4', profile: 'demo' };
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => call('POST', '/v1/runs', { body, headers: { 'idempotency-key': 'conformance-key', ...WAIT } })),
      );
      const runs = await Promise.all(responses.map((r) => r.json() as Promise<{ runId: string; status: string }>));
      expect(new Set(runs.map((r) => r.runId)).size).toBe(1);
      expect(runs.every((r) => r.status === 'completed')).toBe(true);
      const mismatch = await call('POST', '/v1/runs', { body: { ...body, goal: 'add 5 and 5' }, headers: { 'idempotency-key': 'conformance-key' } });
      expect(mismatch.status).toBe(422);
    });

    it('replays what an SSE client missed from Last-Event-ID, then streams live events until the run ends', async () => {
      const paused = (await (
        await call('POST', '/v1/runs', { body: { goal: 'send_message(to="qa", text="ready")', profile: 'demo' }, headers: WAIT })
      ).json()) as { runId: string; head: { seq: number }; pendingApproval: { approvalId: string } };
      const response = await call('GET', `/v1/runs/${paused.runId}/events`, { headers: { 'last-event-id': '3', accept: 'text/event-stream' } });
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const readUntil = async (needle: string) => {
        while (!text.includes(needle)) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value);
        }
      };
      await readUntil(`id: ${paused.head.seq}\n`);
      const ids = () => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids()[0]).toBe(4);
      await call('POST', `/v1/approvals/${encodeURIComponent(paused.pendingApproval.approvalId)}`, { body: { decision: 'approve' } });
      await readUntil('event: run_completed');
      await reader.cancel();
      const all = ids();
      expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 4));
      expect(text).toContain('event: approval_received');
    });
  });
}
