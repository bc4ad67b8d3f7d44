import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replay, type JournalEvent } from '../../src/core/index.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { startModelServer, type ModelServer } from '../support/modelServer.ts';

// The Node host with a model configured from its environment: POST /v1/runs goes through the
// agent loop by default, an approval in the middle of the loop survives a restart of the host
// (SQLite), the recorded journal replays with the model server stopped, and the key appears in
// no journal, export, error body or log line.

const KEY = 'sk-canary-host-91b0c7e4d2a65f13';
const dir = mkdtempSync(join(tmpdir(), 'cugar-agent-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function host(models: ModelServer, dataDir: string, logs: string[]): Promise<RunningServer> {
  return startServer({
    port: 0,
    dataDir,
    corpusDir: join(dir, 'no-corpus'),
    modelEnv: { CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small', CUGAR_MODEL_KEY: KEY, CUGAR_MODEL_STREAM: '1' },
    log: (line) => logs.push(line),
  });
}

async function call(
  server: RunningServer,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${server.localToken}`, 'content-type': 'application/json' },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, text, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe('the Node host with a model', () => {
  it('pauses an agent run for an approval, survives a restart, completes, and replays without the model', { timeout: 60_000 }, async () => {
    const logs: string[] = [];
    const reflection = 'Asked to tell ops the deploy finished; send_message was approved and queued.';
    const models = await startModelServer([
      { calls: [{ name: 'send_message', args: { to: 'ops', text: 'deploy finished' } }] },
      { text: 'I told ops.' },
      { text: reflection },
    ]);
    const dataDir = join(dir, 'approval');
    let server = await host(models, dataDir, logs);
    let runId: string;
    let approvalId: string;
    try {
      const started = await call(server, '/v1/runs?wait=20', { method: 'POST', body: { goal: 'tell ops the deploy finished', profile: 'demo' } });
      expect(started.json).toMatchObject({ status: 'paused' });
      runId = started.json['runId'] as string;
      approvalId = (started.json['pendingApproval'] as { approvalId: string }).approvalId;
      expect(models.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
    // A new host process on the same SQLite file: the person approves there.
    server = await host(models, dataDir, logs);
    try {
      const decided = await call(server, `/v1/approvals/${approvalId}`, { method: 'POST', body: { decision: 'approve' } });
      expect(decided.json).toMatchObject({ status: 'completed', outputs: { answer: 'I told ops.', 't1.call-0': { queued: true, to: 'ops' } } });
      // The answer, then the run's reflection, written by the model from the journal's account.
      expect(models.requests).toHaveLength(3);
      expect(models.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
      // The second request saw the approved call's result.
      expect(JSON.stringify(models.requests[1]!.body.messages)).toContain('queued');
      expect(JSON.stringify(models.requests[2]!.body.messages)).toContain('From the account of a finished run');
      const kept = await call(server, '/v1/memory/facts?profile=demo&namespace=reflection');
      expect(kept.json['facts']).toMatchObject([{ value: { runId, summary: reflection, success: true } }]);
      // Reflections are memory of the runs, not notes a person kept.
      expect((await call(server, '/v1/memory/notes?profile=demo')).json['notes']).toEqual([]);

      const plan = await call(server, `/v1/runs/${runId}/journal?raw=true`);
      const journal = (plan.json['events'] as JournalEvent[]) ?? [];
      expect(journal.find((e) => e.type === 'plan_created')?.data).toMatchObject({ plan: { source: 'agent' } });
      expect(journal.filter((e) => e.type === 'model_call_complete').map((e) => (e.data as { purpose?: string }).purpose)).toEqual([
        undefined,
        undefined,
        'reflect',
      ]);
      const redacted = await call(server, `/v1/runs/${runId}/journal`);
      for (const body of [plan.text, redacted.text, decided.text, logs.join('\n')]) expect(body).not.toContain(KEY);

      await models.close();
      expect(await replay(journal, server.runtime.registry)).toMatchObject({ ok: true, events: journal.length });
    } finally {
      await server.close();
      await models.close();
    }
  });

  it('streams the model text live as model_delta server-sent events, while the journal keeps the answer whole', { timeout: 60_000 }, async () => {
    const answer = 'Streaming answers arrive piece by piece.';
    const models = await startModelServer([{ slow: 400, then: { text: answer } }]);
    const server = await host(models, join(dir, 'stream'), []);
    try {
      const accepted = await call(server, '/v1/runs', { method: 'POST', body: { goal: 'say something streamed', profile: 'demo' } });
      expect(accepted.status).toBe(202);
      const runId = accepted.json['runId'] as string;
      const response = await fetch(`${server.url}/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${server.localToken}` } });
      const text = await response.text();
      const events = text
        .split('\n\n')
        .filter(Boolean)
        .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] ?? '' }));
      const deltas = events.filter((e) => e.event === 'model_delta').map((e) => (JSON.parse(e.data) as { delta: string }).delta);
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join('')).toBe(answer);
      const kinds = events.map((e) => e.event);
      expect(kinds.indexOf('model_delta')).toBeLessThan(kinds.indexOf('model_call_complete'));
      expect(kinds.at(-1)).toBe('run_completed');
    } finally {
      await server.close();
      await models.close();
    }
  });

  it('forks a recorded agent run from a model answer over HTTP: the prefix from the recording, the rest live', { timeout: 60_000 }, async () => {
    const models = await startModelServer([
      { calls: [{ name: 'add', args: { a: 2, b: 3 } }] },
      { text: 'Five.' },
      { text: 'Added 2 and 3 with add.' },
      { text: 'Six.' },
      { text: 'Multiplied 2 and 3 with multiply.' },
    ]);
    const server = await host(models, join(dir, 'fork'), []);
    try {
      const source = await call(server, '/v1/runs?wait=20', { method: 'POST', body: { goal: 'combine 2 and 3', profile: 'demo' } });
      expect(source.json).toMatchObject({ status: 'completed', outputs: { answer: 'Five.' } });
      const runId = source.json['runId'] as string;
      const journal = (await call(server, `/v1/runs/${runId}/journal?raw=true`)).json['events'] as JournalEvent[];
      const answer = journal.find((e) => e.type === 'model_call_complete')!;
      const edit = { kind: 'model_answer', toolCalls: [{ toolCallId: 'edited', toolName: 'multiply', input: { a: 2, b: 3 } }] };
      const fork = await call(server, `/v1/runs/${runId}/forks`, { method: 'POST', body: { at: answer.seq, edit } });
      expect(fork.status).toBe(201);
      expect(fork.json).toMatchObject({ status: 'completed', outputs: { 't1.call-0': 6, answer: 'Six.' } });
      // Only the calls after the fork point reached the model: the answer and the fork's reflection.
      expect(models.requests).toHaveLength(5);
      const forkId = fork.json['runId'] as string;
      const forked = (await call(server, `/v1/runs/${forkId}/journal?raw=true`)).json['events'] as JournalEvent[];
      expect(forked[0]).toMatchObject({ data: { inputs: { forkOf: { runId, at: answer.seq } } } });
      expect((await call(server, `/v1/runs/${runId}/forks`, { method: 'POST', body: { at: 1, edit } })).status).toBe(400);
      expect((await call(server, '/v1/runs/run_no_such_run_1/forks', { method: 'POST', body: { at: 0, edit: { kind: 'goal', goal: 'x' } } })).status).toBe(404);
    } finally {
      await server.close();
      await models.close();
    }
  });

  it('takes the lexical path when a run asks for it, and keeps the key out of a failed run', { timeout: 60_000 }, async () => {
    const logs: string[] = [];
    const unauthorized = { status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }) };
    // Every call is refused: the lexical run's reflection, the agent run's first turn and its reflection.
    const models = await startModelServer([unauthorized, unauthorized, unauthorized]);
    const server = await host(models, join(dir, 'lexical'), logs);
    try {
      const lexical = await call(server, '/v1/runs?wait=20', { method: 'POST', body: { goal: 'add(a=2, b=3)', profile: 'demo', mode: 'lexical' } });
      expect(lexical.json).toMatchObject({ status: 'completed', outputs: { 'step-0': 5 } });
      // The plan asked no model; the reflection did, and its failure (401) left the journal's own account.
      expect(models.requests).toHaveLength(1);
      expect(JSON.stringify(models.requests[0]!.body.messages)).toContain('From the account of a finished run');
      const lexicalJournal = (await call(server, `/v1/runs/${lexical.json['runId'] as string}/journal?raw=true`)).json['events'] as JournalEvent[];
      expect(lexicalJournal.find((e) => e.type === 'plan_created')?.data).toMatchObject({ plan: { source: 'pattern' } });
      expect(lexicalJournal.filter((e) => e.type === 'model_call_error').map((e) => (e.data as { purpose?: string }).purpose)).toEqual(['reflect']);

      const refused = await call(server, '/v1/runs?wait=20', { method: 'POST', body: { goal: 'add two and three', profile: 'demo' } });
      expect(refused.json).toMatchObject({ status: 'failed', stopReason: 'model_failed', error: { code: 'model_unauthorized' } });
      expect(models.requests).toHaveLength(3);
      const runId = refused.json['runId'] as string;
      const bodies = [refused.text, (await call(server, `/v1/runs/${runId}`)).text, (await call(server, `/v1/runs/${runId}/journal?raw=true`)).text];
      for (const body of [...bodies, logs.join('\n')]) expect(body).not.toContain(KEY);
      expect(logs.join('\n')).toContain('agent runs use small');
    } finally {
      await server.close();
      await models.close();
    }
  });
});
