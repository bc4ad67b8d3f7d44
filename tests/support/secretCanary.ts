import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedFromOf, parseJournal, verifyJournal } from '../../src/core/index.ts';
import { verifyHeadSignature } from '../../src/core/signing.ts';
import { ADMIN, DEMO, TOKENS, WAIT, type Call } from './apiConformance.ts';

/** A token that may export journals raw. */
export const RAW = 'raw-token-0123456789abcdef';
/** {@link TOKENS} plus {@link RAW}: what hosts under the canary suite are configured with. */
export const CANARY_TOKENS = `${TOKENS};${RAW}=*|journal:raw`;
/** A value the host holds as a secret (`CUGAR_SECRET_CANARY_KEY`), shaped like nothing in particular. */
export const KNOWN_SECRET = 'plain-canary-value-5f3a9c';

const JWT_SIG = 'c2lnbmF0dXJlQ2FuYXJ5MDEyMzQ1Njc4OQ';
const PEM_BODY = 'MIIEcanaryPEMbodyQUFBQUFB';

/** Every secret shape, and a needle that must never appear in what a channel shows. */
export const SHAPES: ReadonlyArray<{ name: string; text: string; needle: string }> = [
  { name: 'password pair', text: 'password=hunter2canarypw', needle: 'hunter2canarypw' },
  { name: 'api key pair', text: 'api_key: canaryapikey77', needle: 'canaryapikey77' },
  { name: 'bearer', text: 'Bearer canaryBearerTok123456', needle: 'canaryBearerTok123456' },
  { name: 'openai key', text: 'sk-proj-canaryopenaikey1234567890', needle: 'canaryopenaikey1234567890' },
  { name: 'github token', text: 'ghp_canaryGithubToken0123456789ab', needle: 'canaryGithubToken0123456789ab' },
  { name: 'slack token', text: 'xoxb-1234567890-canaryslackt', needle: 'canaryslackt' },
  { name: 'aws key id', text: 'AKIACANARY0123456789', needle: 'AKIACANARY0123456789' },
  { name: 'jwt', text: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.${JWT_SIG}`, needle: JWT_SIG },
  { name: 'pem', text: `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}\n-----END PRIVATE KEY-----`, needle: PEM_BODY },
  { name: 'url credentials', text: 'postgres://ada:canarydbpass9@db.internal/app', needle: 'canarydbpass9' },
  { name: 'host secret', text: `the key is ${KNOWN_SECRET}`, needle: KNOWN_SECRET },
];

/** All shapes in one text (no double quotes, so it fits in a quoted goal). */
export const BLOB = SHAPES.map((shape) => shape.text).join(' ; ');

/** Every needle found in `text`, by shape name. */
export function leaks(text: string): string[] {
  return SHAPES.filter((shape) => text.includes(shape.needle)).map((shape) => shape.name);
}

export interface CanaryHost {
  call: Call;
  close(): Promise<void>;
  /** What the host logged so far, when the test can see it. */
  logs?: () => string;
}

/**
 * The secret-canary suite: seed every placement (goal, metadata, tool input, approval reason
 * and edited arguments, fact, document) with every secret shape, then read every channel and
 * find none of them. Hosts are configured with {@link CANARY_TOKENS} and
 * `CUGAR_SECRET_CANARY_KEY={@link KNOWN_SECRET}`. Returns the run ids it made, for host-specific channels (CLI).
 */
export function describeSecretCanary(name: string, start: () => Promise<CanaryHost>, more?: (ctx: () => { host: CanaryHost; runIds: string[] }) => void): void {
  describe(`secret canary: ${name}`, () => {
    let host: CanaryHost;
    const runIds: string[] = [];
    const seen: Array<{ channel: string; text: string }> = [];
    const read = async (channel: string, response: Promise<Response>) => {
      const res = await response;
      const text = await res.text();
      seen.push({ channel, text });
      return { status: res.status, text };
    };

    beforeAll(async () => {
      host = await start();
      const { call } = host;
      // Goal, metadata (free text and a secret-named key), an explicit plan's tool input.
      const planned = await read(
        'POST /v1/runs (goal)',
        call('POST', '/v1/runs', {
          token: ADMIN,
          body: { goal: `count the words in "${BLOB}"`, profile: 'demo', metadata: { note: BLOB, apiKey: 'plainvalueundersecretkey' } },
          headers: WAIT,
        }),
      );
      runIds.push((JSON.parse(planned.text) as { runId: string }).runId);
      const explicit = await read(
        'POST /v1/runs (plan)',
        call('POST', '/v1/runs', {
          token: ADMIN,
          body: { goal: 'echo it', profile: 'demo', plan: [{ tool: 'echo', input: { message: BLOB } }] },
          headers: WAIT,
        }),
      );
      runIds.push((JSON.parse(explicit.text) as { runId: string }).runId);
      // An approval: arguments, the decision's reason and edited arguments.
      const paused = await read(
        'POST /v1/runs (approval)',
        call('POST', '/v1/runs', {
          token: ADMIN,
          body: { goal: 'notify', profile: 'demo', plan: [{ tool: 'send_message', input: { to: 'ops', text: BLOB } }] },
          headers: WAIT,
        }),
      );
      const { runId, pendingApproval } = JSON.parse(paused.text) as { runId: string; pendingApproval: { approvalId: string } };
      runIds.push(runId);
      await read('GET /v1/approvals', call('GET', '/v1/approvals?profile=demo', { token: ADMIN }));
      await read(
        'POST /v1/approvals/:id',
        call('POST', `/v1/approvals/${encodeURIComponent(pendingApproval.approvalId)}`, {
          token: ADMIN,
          body: { decision: 'edit', args: { to: 'ops', text: `edited ${BLOB}` }, reason: `ok ${BLOB}`, by: 'canary' },
        }),
      );
      // A fact and a document.
      await read(
        'POST /v1/memory/facts',
        call('POST', '/v1/memory/facts', { token: ADMIN, body: { profile: 'demo', namespace: 'notes', value: { text: BLOB } } }),
      );
      await read('GET /v1/memory/facts', call('GET', '/v1/memory/facts?profile=demo', { token: ADMIN }));
      await read(
        'POST /v1/ingest',
        call('POST', '/v1/ingest', { token: ADMIN, body: { profile: 'demo', documents: [{ path: 'canary.md', text: `Deployment credentials. ${BLOB}` }] } }),
      );
      await read('POST /v1/query', call('POST', '/v1/query', { token: ADMIN, body: { profile: 'demo', query: 'deployment credentials', k: 3 } }));
    }, 120_000);
    afterAll(async () => host?.close());

    it('shows no secret in any run view, export, event stream or listing', async () => {
      const { call } = host;
      for (const runId of runIds) {
        const path = `/v1/runs/${encodeURIComponent(runId)}`;
        await read('GET run', call('GET', path, { token: ADMIN }));
        await read('GET trace', call('GET', `${path}/trace`, { token: ADMIN }));
        await read('GET otlp', call('GET', `${path}/otlp`, { token: ADMIN }));
        await read('GET journal', call('GET', `${path}/journal`, { token: ADMIN }));
        await read('GET journal ndjson', call('GET', `${path}/journal?format=ndjson`, { token: ADMIN }));
        await read('GET events', call('GET', `${path}/events`, { token: ADMIN, headers: { accept: 'text/event-stream' } }));
      }
      await read('GET /v1/runs', call('GET', '/v1/runs', { token: ADMIN }));
      await read('GET /v1/audit', call('GET', '/v1/audit', { token: ADMIN }));
      for (const { channel, text } of seen) expect(leaks(text), channel).toEqual([]);
      // The placements did reach the host: the raw journal holds them all.
      const raw = await read('raw', call('GET', `/v1/runs/${encodeURIComponent(runIds[1]!)}/journal?format=ndjson&raw=true`, { token: RAW }));
      seen.pop();
      expect(leaks(raw.text)).toEqual(SHAPES.map((shape) => shape.name));
    });

    it('redacts plans, error bodies and a 404 that echo what the caller sent', async () => {
      const { call } = host;
      const checks = [
        await read('POST /v1/plan', call('POST', '/v1/plan', { token: ADMIN, body: { goal: `count the words in "${BLOB}"`, profile: 'demo' } })),
        await read('404', call('GET', `/v1/nothing/${encodeURIComponent(BLOB)}`, { token: ADMIN })),
        await read('400', call('POST', '/v1/runs', { token: ADMIN, body: { goal: BLOB, profile: BLOB } })),
        await read('403', call('POST', '/v1/runs', { token: DEMO, body: { goal: BLOB, profile: 'other' } })),
      ];
      expect(checks.map((c) => c.status)).toEqual([200, 404, 400, 403]);
      for (const { channel, text } of seen.slice(-4)) expect(leaks(text), channel).toEqual([]);
    });

    it('exports redacted by default as a derived journal that verifies and names its signed source head; raw needs the scope', async () => {
      const { call } = host;
      const runId = runIds[1]!;
      const path = `/v1/runs/${encodeURIComponent(runId)}/journal?format=ndjson`;
      const forbidden = await call('GET', `${path}&raw=true`, { token: ADMIN });
      expect(forbidden.status).toBe(403);
      expect(((await forbidden.json()) as { error: { code: string } }).error.code).toBe('raw_export_forbidden');
      const derived = parseJournal(await (await call('GET', path, { token: ADMIN })).text());
      const raw = parseJournal(await (await call('GET', `${path}&raw=true`, { token: RAW })).text());
      expect(verifyJournal(derived)).toMatchObject({ ok: true, count: raw.length });
      expect(verifyJournal(raw)).toMatchObject({ ok: true });
      const source = derivedFromOf(derived);
      expect(source).toMatchObject({ redaction: 'cugar-redact-1', runId, head: { seq: raw.at(-1)!.seq, hash: raw.at(-1)!.hash } });
      expect(derivedFromOf(raw)).toBeUndefined();
      const { keys } = (await (await call('GET', '/v1/keys', { token: null })).json()) as { keys: Array<{ keyId: string; publicKey: string }> };
      if (keys.length > 0) {
        expect(source?.signature?.keyId).toBe(keys[0]!.keyId);
        expect(verifyHeadSignature(runId, source!.head, source!.signature!, keys[0]!.publicKey)).toBe(true);
      }
    });

    more?.(() => ({ host, runIds }));

    it('logs no secret', () => {
      if (host.logs) expect(leaks(host.logs())).toEqual([]);
    });
  });
}
