import { createRoute } from '@hono/zod-openapi';
import {
  auditHeadLog,
  CugarError,
  importJournal,
  parseJournal,
  redact,
  replay,
  verifyJournal,
  type JournalEvent,
  type VerifyResult,
  runInputsOf,
  type RunSummary,
  type HeadLogAudit,
  type StoredRunHead,
  type HeadLog,
} from '../../core/index.ts';
import { StoreHeadsSchema } from '../auditSchemas.ts';
import { HttpError, createRouter } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import {
  AuditSchema,
  ImportedSchema,
  JournalBody,
  JournalVerificationSchema,
  ReplaySchema,
  RunParam,
  RunVerificationSchema,
  errorResponses,
  jsonBody,
  jsonResponse,
} from '../schemas.ts';
import { mayUse, principalOf, requireProfile, type Principal } from '../security.ts';
import { loadRun } from './runs.ts';

/** The profile an uploaded journal's run belongs to, from its first event's recorded inputs. */
function profileOf(events: readonly JournalEvent[]): string {
  const profile = runInputsOf(events)?.profile;
  if (profile === undefined) throw new HttpError(400, 'journal_invalid', 'the journal does not start with a run');
  return profile;
}

/** Audit: verify stored and uploaded journals, import one as a run, replay one. */
/**
 * Verify one stored run against its recorded head. A row the store cannot read back (corrupt
 * on disk) is a finding about that run, reported like a broken link, never an error for the
 * whole audit.
 */
async function verifyStoredRun(runtime: Runtime, run: RunSummary, seen?: Map<string, JournalEvent[]>): Promise<VerifyResult> {
  let journal: JournalEvent[];
  try {
    journal = await runtime.store.readJournal(run.runId);
  } catch (error) {
    if (!(error instanceof CugarError) || error.code !== 'corrupt_row') throw error;
    return { ok: false, seq: 0, reason: `the store cannot read this journal back: ${error.message}`, count: 0 };
  }
  seen?.set(run.runId, journal);
  const chain = verifyJournal(journal, run.head);
  const signer = runtime.signer;
  if (!chain.ok || !signer) return chain;
  // The chain shows the journal matches its recorded head; the signature shows the head is this
  // host's, which someone able to rewrite the store (events and head together) cannot forge.
  const atRest = run.status !== 'running';
  if (!run.signature) return atRest ? { ok: false, seq: run.head.seq, reason: 'the run is at rest but its head is not signed', count: chain.count } : chain;
  if (!signer.verify(run.runId, run.head, run.signature)) {
    return { ok: false, seq: run.head.seq, reason: "the head's signature is not this host's signature of it", count: chain.count };
  }
  return chain;
}

/**
 * The store's log of heads against the runs it holds (see `auditHeadLog`), with findings only
 * about runs `principal` may see: a profile token learns nothing of another profile's runs.
 */
function auditStoreLog(runtime: Runtime, log: HeadLog, runs: readonly StoredRunHead[], principal: Principal): HeadLogAudit {
  const signer = runtime.signer;
  const audit = auditHeadLog(log, runs, signer && ((head, signature) => signer.verifyLog(head, signature)));
  const findings = audit.findings.filter((finding) => mayUse(principal, finding.profile));
  return { ...audit, ok: audit.ok || (!audit.problem && audit.signature !== 'bad' && findings.length === 0), findings };
}

/** What the audit says of runs that predate the log of heads. */
function predatingNote(audit: HeadLogAudit): string | undefined {
  if (audit.predating === 0) return undefined;
  return audit.size === 0
    ? `the log of heads starts with the store's next write: ${audit.predating} run(s) predate it`
    : `${audit.predating} run(s) predate the log of heads: it covers them from the head they had when it started`;
}

export function auditRoutes(runtime: Runtime) {
  return createRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/audit/runs/{runId}',
        request: { params: RunParam },
        responses: { 200: jsonResponse(RunVerificationSchema, 'Chain verification of one run against its recorded head'), ...errorResponses },
      }),
      async (c) => {
        const { runId } = c.req.valid('param');
        const summary = await loadRun(runtime, c, runId);
        return c.json({ runId, ...(await verifyStoredRun(runtime, summary)) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/audit',
        responses: { 200: jsonResponse(AuditSchema, 'Chain verification of every run the token may see'), ...errorResponses },
      }),
      async (c) => {
        const principal = principalOf(c);
        const all = await runtime.store.listRuns();
        const results: Array<{ runId: string; ok: boolean; seq?: number; reason?: string }> = [];
        // Each journal is kept only for as long as it takes to note its hash at the run's last
        // entry in the log of heads, which a running run must still pass through.
        const headLog = await runtime.store.readHeadLog();
        const lastLogged = new Map(headLog.entries.map((entry) => [entry.runId, entry.seq]));
        const passes = new Map<string, string | undefined>();
        for (const run of all.filter((r) => mayUse(principal, r.profile))) {
          const seen = new Map<string, JournalEvent[]>();
          const result = await verifyStoredRun(runtime, run, seen);
          const seq = lastLogged.get(run.runId);
          if (seq !== undefined) passes.set(run.runId, seen.get(run.runId)?.[seq]?.hash);
          results.push({ runId: run.runId, ok: result.ok, ...(result.ok ? {} : { seq: result.seq, reason: result.reason }) });
        }
        // A run the log disagrees about is a finding of that run; a run the log names but the
        // store lost is listed as one.
        const heads = all.map((run) => (passes.has(run.runId) ? { ...run, hashAt: () => passes.get(run.runId) } : run));
        const log = auditStoreLog(runtime, headLog, heads, principal);
        for (const finding of log.findings) {
          const listed = results.find((r) => r.runId === finding.runId);
          if (!listed) results.push({ runId: finding.runId, ok: false, reason: finding.reason });
          else if (listed.ok) Object.assign(listed, { ok: false, seq: all.find((r) => r.runId === finding.runId)?.head.seq, reason: finding.reason });
        }
        // How many entries the log holds counts every profile's appends: only a token for all profiles sees it.
        const everyProfile = principal.profiles === '*';
        const note = everyProfile ? predatingNote(log) : undefined;
        const summary = {
          ok: log.ok,
          signature: log.signature,
          ...(everyProfile ? { size: log.size, signedSize: log.signedSize, predating: log.predating, pruned: log.pruned.length } : {}),
          ...(log.problem ? { problem: log.problem } : {}),
          ...(note ? { note } : {}),
        };
        return c.json({ ok: log.ok && results.every((r) => r.ok), runs: results, log: summary }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/audit/heads',
        responses: {
          200: jsonResponse(
            StoreHeadsSchema,
            "The store's log of heads and every run's signed head, to verify offline with the public key of GET /v1/keys (a token for every profile)",
          ),
          ...errorResponses,
        },
      }),
      async (c) => {
        // The log names every profile's runs, and its fold needs every entry.
        if (principalOf(c).profiles !== '*')
          throw new HttpError(403, 'forbidden_heads', 'the log of heads names the runs of every profile: it needs a token for all profiles');
        const [log, runs] = await Promise.all([runtime.store.readHeadLog(), runtime.store.listRuns()]);
        const heads = runs.map(({ runId, profile, status, head, signature }) => ({ runId, profile, status, head, ...(signature ? { signature } : {}) }));
        return c.json({ log, runs: heads }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/audit/journal',
        request: { body: jsonBody(JournalBody) },
        responses: { 200: jsonResponse(JournalVerificationSchema, 'Verification of an uploaded journal (NDJSON or a JSON array)'), ...errorResponses },
      }),
      (c) => {
        const events = parseJournal(c.req.valid('json').journal);
        return c.json({ runId: events[0]?.runId ?? null, ...verifyJournal(events) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/journals',
        request: { body: jsonBody(JournalBody) },
        responses: { 200: jsonResponse(ImportedSchema, 'The imported run: its chain verified and its journal stored as it was'), ...errorResponses },
      }),
      async (c) => {
        const events = parseJournal(c.req.valid('json').journal);
        requireProfile(c, profileOf(events));
        return c.json(await importJournal(runtime.store, events, runtime.signer), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/replay',
        request: { body: jsonBody(JournalBody) },
        responses: {
          200: jsonResponse(ReplaySchema, 'Replay of an uploaded journal against recorded results: identical, or the first divergence'),
          ...errorResponses,
        },
      }),
      async (c) => {
        const events = parseJournal(c.req.valid('json').journal);
        requireProfile(c, profileOf(events));
        return c.json(
          redact(
            await replay(events, runtime.registry, {
              ...(runtime.policy ? { policy: runtime.policy } : {}),
              ...(runtime.toolVersions ? { toolVersions: runtime.toolVersions } : {}),
            }),
          ),
          200,
        );
      },
    );
}
