import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importJournal } from '../../src/core/index.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { interruptedRun, untilSettled } from '../support/interruptedRun.ts';

const dir = mkdtempSync(join(tmpdir(), 'cugar-server-'));
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: dir, corpusDir: join(dir, 'no-corpus'), log: () => undefined });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Send raw bytes over loopback and return the status line of the reply (or what happened). */
function raw(request: string | Buffer[], timeoutMs = 5_000): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let reply = '';
    const timer = setTimeout(() => (socket.destroy(), resolve(reply.split('\r\n')[0] || 'timeout')), timeoutMs);
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(reply.split('\r\n')[0]!);
      }
    });
    socket.on('error', () => (clearTimeout(timer), resolve(reply.split('\r\n')[0] || 'reset')));
    socket.on('close', () => (clearTimeout(timer), resolve(reply.split('\r\n')[0] || 'closed')));
    if (typeof request === 'string') socket.write(request);
    else for (const part of request) socket.write(part);
  });
}

describe('Node host over loopback', () => {
  it('binds loopback, prints a local token, and serves the API with it', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.localToken).toMatch(/^[0-9a-f]{48}$/);
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/v1/runs`)).status).toBe(401);
    const run = await fetch(`${server.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.localToken}`, 'content-type': 'application/json', prefer: 'wait=20' },
      body: JSON.stringify({ goal: 'calculate (2 + 3) * 4', profile: 'demo' }),
    });
    expect(await run.json()).toMatchObject({ status: 'completed', outputs: { 'step-0': 20 } });
    expect((await fetch(`${server.url}/`)).headers.get('content-type')).toContain('text/html');
  });

  it('keeps the local token in the data directory, so a restart signs in with the same one', async () => {
    const file = join(dir, 'local-token');
    expect(readFileSync(file, 'utf8').trim()).toBe(server.localToken);
    expect(statSync(file).mode & 0o077).toBe(0);
    const other = mkdtempSync(join(tmpdir(), 'cugar-token-'));
    try {
      const first = await startServer({ port: 0, dataDir: other, log: () => undefined });
      await first.close();
      const second = await startServer({ port: 0, dataDir: other, log: () => undefined });
      expect(second.localToken).toBe(first.localToken);
      expect((await fetch(`${second.url}/v1/runs`, { headers: { authorization: `Bearer ${first.localToken}` } })).status).toBe(200);
      await second.close();
      // A file that holds no usable token is replaced by a new one.
      writeFileSync(join(other, 'local-token'), 'not a token\n');
      const third = await startServer({ port: 0, dataDir: other, log: () => undefined });
      expect(third.localToken).toMatch(/^[0-9a-f]{48}$/);
      expect(third.localToken).not.toBe(first.localToken);
      await third.close();
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('refuses to bind a public address without tokens', async () => {
    await expect(startServer({ hostname: '0.0.0.0', port: 0, dataDir: dir, log: () => undefined })).rejects.toThrow(/refusing to bind/);
  });

  it('answers chunked and Content-Length tricks with 4xx, never 5xx', async () => {
    const auth = `Authorization: Bearer ${server.localToken}\r\n`;
    const big = 'x'.repeat(64 * 1024);
    // Announced too large: refused before reading.
    expect(
      await raw(`POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${5 * 1024 * 1024}\r\n\r\n{`),
    ).toMatch(/^HTTP\/1\.1 4\d\d/);
    // Chunked past the limit.
    const chunks = [Buffer.from(`POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`)];
    for (let i = 0; i < 20; i++) chunks.push(Buffer.from(`${big.length.toString(16)}\r\n${big}\r\n`));
    chunks.push(Buffer.from('0\r\n\r\n'));
    expect(await raw(chunks)).toMatch(/^HTTP\/1\.1 4\d\d/);
    // Both framings at once (request smuggling): refused by the parser.
    expect(await raw(`POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 4\d\d/,
    );
    // Malformed chunk sizes.
    expect(await raw(`POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 4\d\d/,
    );
    // Invalid JSON.
    expect(await raw(`POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: 5\r\n\r\n{"a":`)).toMatch(
      /^HTTP\/1\.1 400/,
    );
    // The server is still fine.
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
  });

  it('fires approval deadlines on its own: a paused run times out and finishes with no request driving it', { timeout: 30_000 }, async () => {
    const timed = await startServer({
      port: 0,
      dataDir: join(dir, 'timeouts'),
      corpusDir: join(dir, 'no-corpus'),
      approval: { timeoutMs: 300, onTimeout: 'approve' },
      sweepIntervalMs: 100,
      log: () => undefined,
    });
    try {
      const headers = { authorization: `Bearer ${timed.localToken}`, 'content-type': 'application/json' };
      const paused = (await (
        await fetch(`${timed.url}/v1/runs?wait=20`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ goal: 'send_message(to="ops", text="nightly report")', profile: 'demo' }),
        })
      ).json()) as { runId: string; status: string };
      expect(paused.status).toBe('paused');
      // Only the store is read from here on: nothing but the host's timer can move the run.
      const store = timed.runtime.store;
      await expect.poll(async () => (await store.getRun(paused.runId))?.status, { timeout: 10_000, interval: 100 }).toBe('completed');
      const types = (await store.readJournal(paused.runId)).map((e) => e.type);
      expect(types).toContain('approval_timeout');
      expect(types.indexOf('approval_timeout')).toBeLessThan(types.lastIndexOf('tool_call_complete'));
      expect((await store.listApprovals({ runId: paused.runId }))[0]?.status).toBe('timed_out');
    } finally {
      await timed.close();
    }
  });
});

describe('Node host restart', () => {
  it('resumes the runs a previous process left running, with no request', async () => {
    const restartDir = mkdtempSync(join(tmpdir(), 'cugar-restart-'));
    try {
      const { runId, journal } = await interruptedRun();
      const store = new SqliteStore(join(restartDir, 'cugar.db'));
      await importJournal(store, journal);
      expect((await store.getRun(runId))?.status).toBe('running');
      await store.close();

      const restarted = await startServer({ port: 0, dataDir: restartDir, corpusDir: join(restartDir, 'no-corpus'), log: () => undefined });
      try {
        const body = await untilSettled(
          async () =>
            (await (await fetch(`${restarted.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${restarted.localToken}` } })).json()) as {
              status: string;
              outputs?: Record<string, unknown>;
            },
        );
        expect(body).toMatchObject({ status: 'completed', outputs: { 'step-0': 5, 'step-1': 20 } });
        const resumed = await restarted.runtime.store.readJournal(runId);
        expect(resumed.filter((e) => e.type === 'run_resumed')).toHaveLength(1);
        // The step that had started re-ran under its idempotency key; the one before did not.
        expect(resumed.filter((e) => e.type === 'tool_call_complete').map((e) => e.type === 'tool_call_complete' && e.data.stepId)).toEqual([
          'step-0',
          'step-1',
        ]);
      } finally {
        await restarted.close();
      }
    } finally {
      rmSync(restartDir, { recursive: true, force: true });
    }
  });
});
