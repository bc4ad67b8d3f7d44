import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/pages/fixtureServer.ts';
import { runCugar, type CliResult } from '../support/cliProcess.ts';

// The CLI's local commands carry web_search and internet_extract with the rules of `cugar serve`:
// each command is a real `cugar` process on a data directory, the web a loopback server with a
// SearXNG-shaped search API and saved pages.

const dir = mkdtempSync(join(tmpdir(), 'cugar-cli-web-'));
let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function cugar(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  // No configuration file is read (the working directory has none), and none of the host's web settings leak in.
  return runCugar([...args, '--data-dir', join(dir, 'data')], {
    cwd: dir,
    env: { CUGAR_SEARXNG_URL: '', CUGAR_NET_ALLOW: '', CUGAR_MCP_ALLOW: '', CUGAR_CONFIG: '', ...env },
  });
}

interface Outcome {
  runId: string;
  status: string;
  outputs: Record<string, { source?: string; results?: Array<{ title: string; url?: string; path?: string }>; title?: string; summary?: string }>;
  error?: { code: string };
}

const online = { CUGAR_MCP_ALLOW: JSON.stringify({ demo: { network: true } }) };

describe('the web tools in the CLI’s local commands', () => {
  it('lists both tools, and searches the corpus without the network even with an engine configured', async () => {
    const tools = JSON.parse((await cugar(['tools', '--json'])).stdout) as Array<{ name: string; allowNetwork?: boolean }>;
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['web_search', 'internet_extract']));
    const note = join(dir, 'rivers.md');
    writeFileSync(note, 'River restoration replaces concrete channels with planted floodplains.');
    expect((await cugar(['ingest', note, '--json'])).code).toBe(0);
    const before = server.paths.length;
    const result = await cugar(['run', 'web_search(query="river restoration")', '--json'], { CUGAR_SEARXNG_URL: server.origin });
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as Outcome;
    expect(outcome.outputs['step-0']).toMatchObject({ source: 'corpus', results: [expect.objectContaining({ path: 'rivers.md' })] });
    // The profile has no network: nothing reached the engine.
    expect(server.paths.length).toBe(before);
  });

  it('asks the configured SearXNG engine when the profile allows the network, and replays the run without it', async () => {
    const result = await cugar(['run', 'web_search(query="floods", k=5)', '--json'], { ...online, CUGAR_SEARXNG_URL: server.origin });
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as Outcome;
    const output = outcome.outputs['step-0']!;
    expect(output.source).toBe('searxng');
    // The fixture's two http(s) results, its javascript: link dropped.
    expect(output.results!.map((r) => r.url)).toEqual(['https://example.org/rivers', 'https://example.com/floodplain']);
    expect(output.results![0]!.title).toBe('Rivers and floods');
    expect(server.paths.at(-1)).toBe('/search');
    const requests = server.paths.length;
    // Replay uses the journal alone: the engine is not asked again (and need not be configured).
    expect(JSON.parse((await cugar(['replay', outcome.runId, '--json'])).stdout)).toMatchObject({ ok: true });
    expect(server.paths.length).toBe(requests);
  });

  it('with the network but no engine, auto searches the corpus and source=web fails with search_not_configured', async () => {
    const auto = JSON.parse((await cugar(['run', 'web_search(query="river restoration")', '--json'], online)).stdout) as Outcome;
    expect(auto.outputs['step-0']!.source).toBe('corpus');
    const web = await cugar(['run', 'web_search(query="river restoration", source="web")', '--json'], online);
    expect(web.code).toBe(1);
    expect(web.stdout + web.stderr).toContain('search_not_configured');
  });

  it('extracts a loopback page only where the profile allows the network and the allow-list names the address', async () => {
    const goal = `internet_extract(url="${server.origin}/page/recipe")`;
    const refused = await cugar(['run', goal, '--json'], { CUGAR_NET_ALLOW: '127.0.0.1/32' });
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/network/);
    const private_ = await cugar(['run', goal, '--json'], online);
    expect(private_.code).toBe(1);
    expect(private_.stdout + private_.stderr).toMatch(/private|not allowed|refused/i);
    const fetched = await cugar(['run', goal, '--json'], { ...online, CUGAR_NET_ALLOW: '127.0.0.1/32' });
    expect(fetched.code).toBe(0);
    const page = (JSON.parse(fetched.stdout) as Outcome).outputs['step-0']!;
    expect(page.title).toBe('Lemon barley soup recipe');
    expect(page.summary!.length).toBeGreaterThan(20);
  });

  it('refuses an invalid engine URL before anything runs (a typed configuration error)', async () => {
    const result = await cugar(['tools', '--json'], { CUGAR_SEARXNG_URL: 'ftp://127.0.0.1/' });
    expect(result.code).toBe(2);
    // With --json the error is the JSON answer on stdout.
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'invalid_config', message: expect.stringMatching(/web tool settings/) } });
  });
});
