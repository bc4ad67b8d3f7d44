import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/pages/fixtureServer.ts';
import { startModelServer, type ModelServer } from '../support/modelServer.ts';

// With a model configured, internet_extract summarises the page's main text with the host's
// model (the scripted OpenAI-compatible server on loopback, over the real adapter), falls back to
// the extractive summary when the model fails (with the error's code), records which summarised
// it in the tool's output, and replays from the journal without the model or the page.

const KEY = 'sk-extract-summary-canary-5d41';
const dir = mkdtempSync(join(tmpdir(), 'cugar-extract-model-'));
let pages: FixtureServer;
let models: ModelServer;
let host: RunningServer;

beforeAll(async () => {
  pages = await startFixtureServer();
  models = await startModelServer();
  host = await startServer({
    port: 0,
    dataDir: dir,
    corpusDir: join(dir, 'no-corpus'),
    log: () => undefined,
    modelEnv: { CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small', CUGAR_MODEL_KEY: KEY },
    mcp: { servers: [], allow: { demo: { network: true, commands: [] } } },
    web: { allow: { cidrs: ['127.0.0.1/32'] }, timeoutMs: 2000 },
  });
}, 60_000);
afterAll(async () => {
  await host?.close();
  await models?.close();
  await pages?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${host.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${host.localToken}`, 'content-type': 'application/json', prefer: 'wait=20' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

const extract = () => call('/v1/runs', { goal: `internet_extract(url="${pages.origin}/page/forum-thread", sentences=2)`, profile: 'demo' });
const outputOf = (run: Record<string, unknown>) => (run['outputs'] as Record<string, Record<string, unknown>>)['step-0']!;

describe('internet_extract with a model configured', () => {
  it('summarises with the model, and replays without the model or the page', async () => {
    // The summary, then the run's reflection.
    models.script([{ text: 'A forum thread on fixing a slipping bicycle chain with the barrel adjuster.' }, { text: 'Extracted one page.' }]);
    const before = models.requests.length;
    const done = await extract();
    expect(done['status']).toBe('completed');
    expect(outputOf(done)).toMatchObject({
      summary: 'A forum thread on fixing a slipping bicycle chain with the barrel adjuster.',
      summarySource: 'model',
      summaryModel: 'small',
    });
    const asked = models.requests[before]!;
    expect(asked.body).toMatchObject({ model: 'small', temperature: 0, max_tokens: 300 });
    expect(JSON.stringify(asked.body.messages)).toContain('barrel adjuster');
    expect(asked.authorization).toBe(`Bearer ${KEY}`);

    const journal = await (
      await fetch(`${host.url}/v1/runs/${String(done['runId'])}/journal?raw=true&format=ndjson`, { headers: { authorization: `Bearer ${host.localToken}` } })
    ).text();
    expect(journal).not.toContain(KEY);
    const requests = models.requests.length;
    const fetched = pages.paths.length;
    expect(await call('/v1/replay', { journal })).toMatchObject({ ok: true });
    expect(models.requests.length).toBe(requests);
    expect(pages.paths.length).toBe(fetched);
  });

  it('keeps the extractive summary when the model fails, saying why', async () => {
    models.script([{ status: 500, body: JSON.stringify({ error: { message: `upstream broke for ${KEY}` } }) }, { text: 'Extracted one page.' }]);
    const done = await extract();
    expect(done['status']).toBe('completed');
    const output = outputOf(done);
    expect(output).toMatchObject({ summarySource: 'extractive', summaryModel: 'small', summaryError: expect.stringMatching(/^model_/) });
    expect(String(output['summary'])).toContain('My chain skips whenever I shift');
    expect(JSON.stringify(done)).not.toContain(KEY);
  });
});
