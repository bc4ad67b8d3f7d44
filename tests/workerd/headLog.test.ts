import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditHeadLog, type HeadLog } from '../../src/core/index.ts';
import { generateSigningKey, verifyHeadSignature, verifyLogHeadSignature } from '../../src/core/signing.ts';
import { ADMIN, WAIT, type Call } from '../support/apiConformance.ts';
import { startWorker } from './startWorker.ts';

// The Worker with a signing key (a Worker secret): the directory object signs its log of heads
// with it, and a verifier holding only the public key of GET /v1/keys checks both kinds of head.
let worker: { call: Call; close(): Promise<void> } | undefined;
beforeAll(async () => {
  worker = await startWorker({ CUGAR_SIGNING_KEY: generateSigningKey() });
});
afterAll(async () => worker?.close());

describe('The signed log of heads on the Worker', () => {
  it('signs the log and the run heads with the published key, and the audit finds nothing', async () => {
    const call = worker!.call;
    const runIds: string[] = [];
    for (const goal of ['add 1 and 2', 'add 3 and 4']) {
      const outcome = (await (await call('POST', '/v1/runs', { body: { goal, profile: 'demo' }, headers: WAIT })).json()) as { runId: string; status: string };
      expect(outcome.status).toBe('completed');
      runIds.push(outcome.runId);
    }
    const { keys } = (await (await call('GET', '/v1/keys', { token: null })).json()) as { keys: Array<{ publicKey: string }> };
    const publicKey = keys[0]!.publicKey;
    const audit = (await (await call('GET', '/v1/audit', { token: ADMIN })).json()) as { ok: boolean; log: { signature: string; size: number } };
    expect(audit).toMatchObject({ ok: true, log: { ok: true, signature: 'signed' } });
    const { log, runs } = (await (await call('GET', '/v1/audit/heads', { token: ADMIN })).json()) as {
      log: HeadLog;
      runs: Array<{ runId: string; profile: string; head: { seq: number; hash: string }; signature?: { keyId: string; sig: string } }>;
    };
    expect(log.entries.map((e) => e.runId)).toEqual(expect.arrayContaining(runIds));
    const check = auditHeadLog(log, runs, (head, signature) => verifyLogHeadSignature(head, signature, publicKey));
    expect(check).toMatchObject({ ok: true, signature: 'signed', findings: [] });
    for (const run of runs.filter((r) => runIds.includes(r.runId))) expect(verifyHeadSignature(run.runId, run.head, run.signature!, publicKey)).toBe(true);
    // Without one of its runs, the same log says which one is gone.
    const partial = auditHeadLog(
      log,
      runs.filter((r) => r.runId !== runIds[0]),
      (head, signature) => verifyLogHeadSignature(head, signature, publicKey),
    );
    expect(partial.findings).toMatchObject([{ runId: runIds[0], kind: 'missing', signed: true }]);
  });
});
