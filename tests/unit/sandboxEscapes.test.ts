import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandbox } from '../../src/edge/nodeSandbox.ts';
import { ESCAPES, runEscapes, type EscapeOutcome } from '../support/sandboxEscapes.ts';

// Every escape attempt of the shared table on Node: the audit refuses it (with the expected
// finding), and run anyway with the audit bypassed, the worker stops it with a typed error.
// A listener on loopback counts connections: there must be none.

let listener: Server;
let connections = 0;
let port = 0;

beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

describe('sandbox escapes on Node (worker_threads + vm)', () => {
  let outcomes: EscapeOutcome[] = [];

  it('counts a connection made from the host (the listener can see one)', async () => {
    await new Promise<void>((resolve) =>
      connect(port, '127.0.0.1')
        .on('close', () => resolve())
        .on('error', () => resolve()),
    );
    await expect.poll(() => connections).toBeGreaterThan(0);
    connections = 0;
  });

  it('runs at least 50 escape attempts, each refused by the audit or stopped by the worker, with 0 connections', { timeout: 120_000 }, async () => {
    const sandbox = createNodeSandbox();
    outcomes = await runEscapes(sandbox, 'node', { http: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}` });
    await sandbox.close();
    expect(outcomes.length).toBeGreaterThanOrEqual(50);
    for (const outcome of outcomes) {
      const escape = ESCAPES.find((e) => e.name === outcome.name)!;
      expect(outcome.escaped, `${outcome.name} returned a value`).toBeUndefined();
      expect(escape.stop, `${outcome.name} stopped with ${outcome.stoppedWith}`).toContain(outcome.stoppedWith);
      if (escape.audit) {
        expect(outcome.auditOk, `${outcome.name} passed the audit`).toBe(false);
        expect(outcome.auditRules, outcome.name).toContain(escape.audit);
      } else expect(outcome.auditOk, `${outcome.name}: ${outcome.auditRules.join(', ')}`).toBe(true);
      expect(outcome.healthy, `the host after ${outcome.name}`).toBe(true);
    }
    expect(connections).toBe(0);
  });

  it('leaves the host realm as it was', () => {
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect([1].map((x) => x + 1)).toEqual([2]);
    const list: number[] = [];
    expect(list.push(1)).toBe(1);
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
    expect(typeof Promise.prototype.then).toBe('function');
  });
});
