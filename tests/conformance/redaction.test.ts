import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  InMemoryStore,
  JournalEventSchema,
  Orchestrator,
  REDACTED,
  ToolRegistry,
  registerBuiltinTools,
  replay,
  derivedFromOf,
  isSecretKey,
  parseJournal,
  redact,
  redactJournal,
  redactText,
  registerSecretValues,
  verifyJournal,
  type JournalEvent,
} from '../../src/core/index.ts';
import legacy from '../fixtures/legacy-journals.ndjson?raw';

describe('redact', () => {
  it('hides values under secret-named keys at any depth', () => {
    const input = {
      user: 'ada',
      password: 'p',
      nested: { apiKey: 'k', list: [{ Authorization: 'x', token_count: 3 }] },
      clientSecret: 's',
      'x-auth-token': 't',
    };
    expect(redact(input)).toEqual({
      user: 'ada',
      password: REDACTED,
      nested: { apiKey: REDACTED, list: [{ Authorization: REDACTED, token_count: 3 }] },
      clientSecret: REDACTED,
      'x-auth-token': REDACTED,
    });
    expect(input.password).toBe('p');
    for (const key of ['password', 'PASSWORD', 'api_key', 'apiKey', 'secret', 'accessToken', 'authorization', 'cookie', 'private_key'])
      expect(isSecretKey(key), key).toBe(true);
    for (const key of ['user', 'message', 'path', 'authored', 'tokens', 'tokenCeiling', 'token_count', 'passwordPolicy'])
      expect(isSecretKey(key), key).toBe(false);
  });

  it('replaces secret-shaped values anywhere in text', () => {
    const secrets = [
      'Bearer abcdefghijklmnop.qrstu',
      'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'AKIAABCDEFGHIJKLMNOP',
      'xoxb-1234567890-abcdefghij',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ];
    for (const secret of secrets) {
      const out = redactText(`before ${secret} after`);
      expect(out, secret).toBe(`before ${REDACTED} after`);
    }
    expect(redactText('nothing secret here, just words')).toBe('nothing secret here, just words');
  });

  it('never lets a generated token through, and always returns JSON-safe data', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9]{24,40}$/), fc.string(), (token, noise) => {
        const out = JSON.stringify(redact({ note: `${noise} sk-${token} ${noise}`, header: `Bearer ${token}`, password: token }));
        return !out.includes(`sk-${token}`) && !out.includes(`Bearer ${token}`);
      }),
      { numRuns: 300 },
    );
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    expect(redact({ cyclic, big: 10n, f: () => 1, n: Number.POSITIVE_INFINITY, bytes: new Uint8Array(4) })).toEqual({
      cyclic: { a: 1, self: '[Circular]' },
      big: '10',
      n: 'Infinity',
      bytes: '[Uint8Array 4 bytes]',
    });
  });
});

describe('one redaction policy: free text, more shapes, known values, derived journals', () => {
  it('redacts secret-named pairs in free text and keeps measures of secrets', () => {
    const cases: Array<[string, string]> = [
      ['login with password=hunter2 please', `login with password=${REDACTED} please`],
      ['api_key: abc123def and more', `api_key: ${REDACTED} and more`],
      ['{"password":"hunter two","user":"ada"}', `{"password":"${REDACTED}","user":"ada"}`],
      ["config token='xyz 123'", `config token='${REDACTED}'`],
      ['https://x.test/a?access_token=abcd&b=2', `https://x.test/a?access_token=${REDACTED}&b=2`],
      ['postgres://ada:s3cr3tpass@db.local/x', `postgres://ada:${REDACTED}@db.local/x`],
      ['Authorization: Bearer abcdefghijklmnop', `Authorization: ${REDACTED}`],
      // Inside the value of a key that is not secret, and JSON escaped inside a JSON string.
      ['{"message":"password=hunter2 ; api_key: abc123"}', `{"message":"password=${REDACTED} ; api_key: ${REDACTED}"}`],
      ['{"arguments":"{\\"password\\":\\"hunter2\\"}"}', `{"arguments":"{\\"password\\":\\"${REDACTED}\\"}"}`],
    ];
    for (const [input, expected] of cases) expect(redactText(input), input).toBe(expected);
    for (const kept of ['max_tokens=100 token_count: 3', 'the time is 19:00 in LA', 'send a message to bob saying hi', 'see https://example.com/path'])
      expect(redactText(kept), kept).toBe(kept);
  });

  it('replaces cloud, chat and forge tokens and whole PEM blocks', () => {
    const shapes = [
      'sk_live_abcdefghijklmnop1234',
      'glpat-abcdefghijklmnopqrstu',
      'npm_abcdefghijklmnopqrstuvwxyz0123456789',
      'hf_abcdefghijklmnopqrstuvwxyz0123456',
      'https://hooks.slack.com/services/T000/B000/abcdefghijklmnopqrstuvwx',
      'ASIAABCDEFGHIJKLMNOP',
      'ya29.abcdefghijklmnopqrstuvwxyz',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
    ];
    for (const shape of shapes) expect(redactText(`x ${shape} y`), shape).toBe(`x ${REDACTED} y`);
  });

  it('replaces values the host registered, whatever their shape, and ignores values too short to be secrets', () => {
    registerSecretValues(['plain-looking-value-41', 'abc']);
    expect(redactText('the value plain-looking-value-41 leaked')).toBe(`the value ${REDACTED} leaked`);
    expect(redact({ nested: ['x plain-looking-value-41 y'] })).toEqual({ nested: [`x ${REDACTED} y`] });
    expect(redactText('abc stays')).toBe('abc stays');
  });

  it('derives a redacted journal that verifies on its own and names its source head', () => {
    const runs = new Map<string, JournalEvent[]>();
    for (const event of parseJournal(legacy)) runs.set(event.runId, [...(runs.get(event.runId) ?? []), event]);
    expect(runs.size).toBeGreaterThan(3);
    for (const [runId, events] of runs) {
      const derived = redactJournal(events, { keyId: 'ed25519:test', sig: 'ab'.repeat(64) });
      expect(verifyJournal(derived), runId).toMatchObject({ ok: true, count: events.length });
      for (const event of derived) expect(JournalEventSchema.safeParse(event).success, `${runId}#${event.seq}`).toBe(true);
      const last = events.at(-1)!;
      expect(derivedFromOf(derived)).toEqual({
        redaction: 'cugar-redact-1',
        runId,
        head: { seq: last.seq, hash: last.hash },
        signature: { keyId: 'ed25519:test', sig: 'ab'.repeat(64) },
      });
      expect(derivedFromOf(events)).toBeUndefined();
      expect(derived.at(-1)!.hash).not.toBe(last.hash);
    }
    const secretRun = [...runs.values()][0]!;
    const planted = secretRun.map((event, i) =>
      i === 0 ? { ...event, data: { ...event.data, goal: 'use password=hunter2canary now' } } : event,
    ) as JournalEvent[];
    expect(JSON.stringify(redactJournal(planted))).not.toContain('hunter2canary');
  });
});

describe('replaying a redacted export', () => {
  it('reproduces a run whose inputs held no secret, hash for hash of the derived chain; a redacted input is a divergence', async () => {
    const registry = new ToolRegistry();
    registerBuiltinTools(registry);
    registry.register('demo', 'notify', {
      description: 'Notify a person',
      parameters: z.object({ to: z.string() }),
      requiresApproval: true,
      handler: ({ to }) => `told ${to}`,
    });
    const store = new InMemoryStore();
    const orchestrator = new Orchestrator({ registry, store, sleep: async () => undefined });
    const plain = await orchestrator.start('add 2 and 3, then multiply the result by 4', 'demo');
    const approved = await orchestrator.start('notify', 'demo', { plan: [{ tool: 'notify', input: { to: 'ops' } }] });
    await orchestrator.resolveApproval(approved.pendingApproval!.approvalId, { decision: 'approve', reason: 'fine', by: 'ada' });
    for (const runId of [plain.runId, approved.runId]) {
      const derived = redactJournal(await store.readJournal(runId));
      expect(await replay(derived, registry), runId).toMatchObject({ ok: true, events: derived.length });
    }
    const secret = await orchestrator.start('echo it', 'demo', { plan: [{ tool: 'echo', input: { message: 'password=hunter2canary' } }] });
    const result = await replay(redactJournal(await store.readJournal(secret.runId)), registry);
    expect(result.ok).toBe(false);
  });
});
