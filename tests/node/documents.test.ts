import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/index.ts';
import { createApp } from '../../src/api/app.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';

const DEMO = 'demo-token-0123456789abcdef';
const OTHER = 'other-token-0123456789abcdef';

async function setup() {
  const runtime = await createRuntime(new SqliteStore(':memory:'), parseConfig({}).config);
  const app = createApp(runtime, { tokens: { [DEMO]: ['demo'], [OTHER]: ['other'] }, rateLimit: { perSecond: 1000, burst: 5000 } });
  const call = async (method: string, path: string, body?: unknown, token = DEMO) => {
    const response = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), prefer: 'wait=20' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string; message?: string } } };
  };
  return { call };
}

describe('documents and notes of a profile', () => {
  it('rag_query over a profile with no documents fails saying so, instead of answering []', async () => {
    const { call } = await setup();
    const run = await call('POST', '/v1/runs', { goal: 'rag_query(query="how do bees make honey")', profile: 'demo' });
    expect(run.body).toMatchObject({ status: 'failed', error: { code: 'no_documents' } });
    expect(String(run.body.error?.message)).toContain('ingest');
  });

  it('lists ingested documents and deletes one from retrieval', async () => {
    const { call } = await setup();
    const documents = [
      { path: 'bees.md', text: '# Bees\n\nBees make honey from nectar. A hive keeps one queen.' },
      { path: 'budgets.md', text: '# Budgets\n\nA run stops when its cost ceiling is reached.' },
    ];
    expect((await call('POST', '/v1/ingest', { profile: 'demo', documents })).status).toBe(200);
    const listed = await call('GET', '/v1/documents?profile=demo');
    expect(listed.body['documents']).toEqual([
      { path: 'bees.md', chunks: 1, characters: expect.any(Number) },
      { path: 'budgets.md', chunks: 1, characters: expect.any(Number) },
    ]);
    const paths = async (query: string) =>
      ((await call('POST', '/v1/query', { profile: 'demo', query, k: 5 })).body['hits'] as { path: string }[]).map((h) => h.path);
    expect(await paths('honey nectar queen')).toContain('bees.md');

    expect(await call('DELETE', '/v1/documents?profile=demo&path=bees.md')).toEqual({ status: 200, body: { path: 'bees.md', chunks: 1 } });
    expect(((await call('GET', '/v1/documents?profile=demo')).body['documents'] as { path: string }[]).map((d) => d.path)).toEqual(['budgets.md']);
    expect(await paths('honey nectar queen')).not.toContain('bees.md');
    expect(await call('DELETE', '/v1/documents?profile=demo&path=bees.md')).toMatchObject({ status: 404, body: { error: { code: 'unknown_document' } } });
    // Another profile's token neither sees nor deletes them.
    expect((await call('GET', '/v1/documents?profile=demo', undefined, OTHER)).status).toBe(403);
    expect((await call('DELETE', '/v1/documents?profile=demo&path=budgets.md', undefined, OTHER)).status).toBe(403);
  });

  it('shows notes kept by remember, finds them by meaning, and forgets one', async () => {
    const { call } = await setup();
    const run = await call('POST', '/v1/runs', { goal: 'remember(text="the garden gate code is 4711")', profile: 'demo' });
    expect(run.body['status']).toBe('completed');
    await call('POST', '/v1/runs', { goal: 'remember(text="the dentist is on Tuesday")', profile: 'demo' });
    const notes = (await call('GET', '/v1/memory/notes?profile=demo')).body['notes'] as { id: string; text: string; source: string }[];
    expect(notes.map((n) => n.text).sort()).toEqual(['the dentist is on Tuesday', 'the garden gate code is 4711']);
    expect(notes.every((n) => n.source === 'remember')).toBe(true);
    const found = (await call('GET', `/v1/memory/notes?profile=demo&q=${encodeURIComponent('garden gate')}`)).body['notes'] as {
      id: string;
      text: string;
      score: number;
    }[];
    expect(found[0]).toMatchObject({ text: 'the garden gate code is 4711', score: expect.any(Number) });

    // The documents' search answers from documents only, never with a note.
    expect((await call('POST', '/v1/query', { profile: 'demo', query: 'garden gate code', k: 5 })).body['hits']).toEqual([]);
    const id = found[0]!.id;
    expect(await call('DELETE', `/v1/memory/notes/${encodeURIComponent(id)}?profile=demo`)).toEqual({ status: 200, body: { id } });
    expect(((await call('GET', '/v1/memory/notes?profile=demo')).body['notes'] as { text: string }[]).map((n) => n.text)).toEqual([
      'the dentist is on Tuesday',
    ]);
    expect(await call('DELETE', `/v1/memory/notes/${encodeURIComponent(id)}?profile=demo`)).toMatchObject({
      status: 404,
      body: { error: { code: 'unknown_note' } },
    });
  });
});
