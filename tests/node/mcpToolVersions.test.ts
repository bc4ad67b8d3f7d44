import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';

// Tools written at run time over MCP: `cugar mcp` (stdio) beside a `cugar serve` on the same
// data lists the active version of each approved tool (its hash in `_meta`), runs it in its
// sandbox like any run, and tells the client (`notifications/tools/list_changed`) when a version
// is approved, activated or rolled back in the other process. A real SDK client over stdio.

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cugar-mcp-versions-'));
const BASE = '/v1/profiles/demo/tools/word_tally/versions';
const source = (factor: number) =>
  `export default function tally(input) { return { words: input.text.split(" ").filter(Boolean).length * ${factor}, factor: ${factor} }; }`;

let host: RunningServer;
let client: Client;
let changes = 0;

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${host.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${host.localToken}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** Propose and approve a version through the host's API; its hash. */
async function approved(factor: number): Promise<string> {
  const proposed = await api('POST', BASE, {
    source: source(factor),
    description: 'Count the words of a text',
    inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 1000 } }, required: ['text'], additionalProperties: false },
    meta: { cost: 1, latency: 50, capabilities: [], idempotent: true },
  });
  const hash = (proposed['version'] as { hash: string }).hash;
  expect(await api('POST', `${BASE}/${hash}/approve`)).toMatchObject({ status: 'active' });
  return hash;
}

/** The listed word_tally's version hash, once the client has been told the list changed. */
async function listedVersion(after: number): Promise<string | undefined> {
  await expect.poll(() => changes, { timeout: 15_000, interval: 50 }).toBeGreaterThan(after);
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === 'word_tally');
  return tool?._meta?.['cugar/toolVersion'] as string | undefined;
}

beforeAll(async () => {
  host = await startServer({ port: 0, dataDir: dir, corpusDir: join(dir, 'no-corpus'), log: () => undefined });
  client = new Client({ name: 'test', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'src/cli/bin.mjs'), 'mcp', '--data-dir', dir],
      cwd: root,
      env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
      stderr: 'ignore',
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tools written at run time over MCP', () => {
  it('lists an approved version, runs it, and follows approvals and rollbacks made by another process', { timeout: 60_000 }, async () => {
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('word_tally');

    const v1 = await approved(1);
    expect(await listedVersion(0)).toBe(v1);
    const listed = (await client.listTools()).tools.find((t) => t.name === 'word_tally')!;
    expect(listed.description).toContain('written at run time');
    expect(listed.inputSchema).toMatchObject({ properties: { text: { type: 'string' } }, required: ['text'] });
    const result = await client.callTool({ name: 'word_tally', arguments: { text: 'one two three' } });
    expect(result.structuredContent).toMatchObject({ status: 'completed', output: { words: 3, factor: 1 } });
    // The call was a run journaled with the version it used.
    const runId = (result.structuredContent as { runId: string }).runId;
    const journal = (await api('GET', `/v1/runs/${runId}/journal?raw=true`))['events'] as Array<{
      type: string;
      data: { inputs?: { toolVersions?: Record<string, string> } };
    }>;
    expect(journal[0]!.data.inputs?.toolVersions).toEqual({ word_tally: v1 });

    let seen = changes;
    const v2 = await approved(10);
    expect(await listedVersion(seen)).toBe(v2);
    expect((await client.callTool({ name: 'word_tally', arguments: { text: 'one two' } })).structuredContent).toMatchObject({ output: { words: 20 } });

    // Rolling back to v1 in the other process changes the list again.
    seen = changes;
    expect(await api('POST', `${BASE}/${v1}/activate`)).toMatchObject({ status: 'active', hash: v1 });
    expect(await listedVersion(seen)).toBe(v1);
    expect((await client.callTool({ name: 'word_tally', arguments: { text: 'one two' } })).structuredContent).toMatchObject({
      output: { words: 2, factor: 1 },
    });
  });
});
