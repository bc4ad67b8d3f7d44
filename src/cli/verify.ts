import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import {
  CugarError,
  HeadLogSchema,
  JournalHeadSchema,
  RUN_STATUSES,
  derivedFromOf,
  parseJournal,
  verifyJournal,
  verifyStoreHeads,
  type HeadSignatureCheck,
  type JournalEvent,
  type JournalHead,
  type LogHead,
  type LogSignatureCheck,
  type HeadLog,
  type StoreHeads,
} from '../core/index.ts';
import { verifyHeadSignature, verifyLogHeadSignature } from '../core/signing.ts';
import { createClient, errorOf, unwrap } from '../api/client.ts';
import { SqliteStore } from '../edge/sqliteStore.ts';
import { paint, type Output } from './output.ts';

// `cugar verify --public-key K`: checks signatures with the host's public key alone — of an
// exported journal, of a server's store (GET /v1/audit/heads) or of the local data directory.
// No private key is read, and nothing the host says about its own state is taken on trust: the
// run heads, the log of heads and the journals are checked here.

const HEX_KEY = /^[0-9a-f]{64}$/;
const SignatureSchema = z.object({ keyId: z.string(), sig: z.string() });
const KeysSchema = z.object({ keys: z.array(z.object({ keyId: z.string(), algorithm: z.literal('Ed25519'), publicKey: z.string().regex(HEX_KEY) })) });
const StoreHeadsSchema = z.object({
  log: HeadLogSchema,
  runs: z.array(
    z.object({ runId: z.string(), profile: z.string(), status: z.enum(RUN_STATUSES), head: JournalHeadSchema, signature: SignatureSchema.optional() }),
  ),
});

/** The options `cugar verify` reads. */
export interface VerifyOptions {
  json: boolean;
  'public-key': string;
  heads?: string;
  /** A log head seen before, `SIZE:HASH`: the log must still extend it. */
  since?: string;
  api?: string;
  token?: string;
  'data-dir'?: string;
}

/** Public keys by key id. */
type KeySet = ReadonlyMap<string, string>;

function usage(message: string): never {
  throw new CugarError(message, { code: 'usage', failureMode: 'USER' });
}

/** Parse `text` with `schema`; a mismatch is bad input named after `what`. */
function parseAs<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) usage(`${what} is not what was expected: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

function readJson(file: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new CugarError(`${what} (${file}) is not readable JSON`, { code: 'invalid_input', failureMode: 'USER', cause });
  }
}

/** A key given as 64 hex characters, a file (hex, or the JSON of GET /v1/keys) or the URL of GET /v1/keys. */
async function loadKeys(source: string): Promise<KeySet> {
  const one = (publicKey: string) => new Map([[`ed25519:${publicKey.slice(0, 16)}`, publicKey]]);
  if (HEX_KEY.test(source)) return one(source);
  let text: string;
  if (/^https?:\/\//.test(source)) {
    const response = await fetch(source);
    if (!response.ok) usage(`${source} answered ${response.status}`);
    text = await response.text();
  } else if (existsSync(source)) text = readFileSync(source, 'utf8');
  else usage('--public-key takes 64 hex characters, a file holding them or the JSON of GET /v1/keys, or that URL');
  if (HEX_KEY.test(text.trim())) return one(text.trim());
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    usage(`${source} holds neither a public key nor the JSON of GET /v1/keys`);
  }
  const { keys } = parseAs(KeysSchema, json, source);
  if (keys.length === 0) usage(`${source} lists no key: the host does not sign`);
  return new Map(keys.map((key) => [key.keyId, key.publicKey]));
}

function checksFor(keys: KeySet): { head: HeadSignatureCheck; log: LogSignatureCheck } {
  const key = (keyId: string) => keys.get(keyId);
  return {
    head: (runId, head, signature) => Boolean(key(signature.keyId)) && verifyHeadSignature(runId, head, signature, key(signature.keyId)!),
    log: (head, signature) => Boolean(key(signature.keyId)) && verifyLogHeadSignature(head, signature, key(signature.keyId)!),
  };
}

/**
 * Whether `journal` is the one that ends at `head`: a journal as recorded must end there; a
 * redacted export is a derived journal that must verify on its own and name that head as its source.
 */
function checkJournal(journal: readonly JournalEvent[], head: JournalHead): string | undefined {
  const derived = derivedFromOf(journal);
  const chain = verifyJournal(journal, derived ? undefined : head);
  if (!chain.ok) return `the journal is broken at seq ${chain.seq}: ${chain.reason}`;
  if (derived && (derived.head.seq !== head.seq || derived.head.hash !== head.hash)) return 'the exported journal names another head as its source';
  return undefined;
}

/** An exported journal (NDJSON or JSON), checked with the key; `heads` (a saved GET /v1/audit/heads) adds the log's word on it. */
function verifyFile(file: string, keys: KeySet, headsFile: string | undefined, since: LogHead | undefined) {
  const journal = parseJournal(readFileSync(file, 'utf8'));
  const derived = derivedFromOf(journal);
  const chain = verifyJournal(journal);
  const last = journal.at(-1);
  const runId = derived?.runId ?? last?.runId ?? usage(`${file} holds no events`);
  const head = derived?.head ?? { seq: last!.seq, hash: last!.hash };
  const checks = checksFor(keys);
  const heads = headsFile ? parseAs(StoreHeadsSchema, readJson(headsFile, 'the heads file'), headsFile) : undefined;
  const listed = heads?.runs.find((run) => run.runId === runId);
  // The signature travels in a redacted export; for a raw one it comes from the heads file.
  const signature = derived?.signature ?? (listed && listed.head.seq === head.seq && listed.head.hash === head.hash ? listed.signature : undefined);
  const state = !signature ? 'unsigned' : checks.head(runId, head, signature) ? 'signed' : 'bad';
  const problems: string[] = [];
  if (!chain.ok) problems.push(`the journal is broken at seq ${chain.seq}: ${chain.reason}`);
  if (state === 'bad') problems.push("the head's signature is not this key's signature of it");
  if (state === 'unsigned') problems.push('no signature of this head was given (a redacted export carries it; with a raw one, pass --heads)');
  const store = heads ? verifyStoreHeads(heads, checks, since) : undefined;
  if (store) {
    const logged = [...store.runs].find((run) => run.runId === runId);
    if (!listed) problems.push('the run is not in the heads file');
    else if (listed.head.seq !== head.seq || listed.head.hash !== head.hash)
      problems.push(`the store's head of this run is seq ${listed.head.seq}, the journal's is seq ${head.seq}`);
    if (!store.log.ok) problems.push(store.log.problem ?? "the store's log of heads does not verify");
    if (logged && !logged.ok && logged.reason) problems.push(logged.reason);
  }
  return {
    ok: problems.length === 0,
    runId,
    head,
    derived: derived !== undefined,
    state,
    problems,
    ...(store && heads ? { log: logSummary(store.log, heads.log) } : {}),
  };
}

/** `--since SIZE:HASH`: a log head seen before. */
function parseSince(value: string | undefined): LogHead | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+):([0-9a-f]{64})$/.exec(value);
  if (!match) usage('--since takes SIZE:HASH, the log head an earlier cugar verify printed');
  return { size: Number(match[1]), hash: match[2]! };
}

/** The log's state; with a valid signature, its signed head as `SIZE:HASH`, to pass as --since next time. */
function logSummary(log: ReturnType<typeof verifyStoreHeads>['log'], headLog: HeadLog) {
  const signed = log.signature === 'signed' && headLog.signed ? `${headLog.signed.size}:${headLog.signed.hash}` : undefined;
  return {
    ok: log.ok,
    state: log.signature,
    size: log.size,
    signedSize: log.signedSize,
    predating: log.predating,
    pruned: log.pruned.length,
    ...(log.problem ? { problem: log.problem } : {}),
    ...(signed ? { since: signed } : {}),
  };
}

/** A server's heads and journals, through the typed client. */
async function serverHeads(api: string, token: string): Promise<{ heads: StoreHeads; journal: (runId: string) => Promise<JournalEvent[]> }> {
  const client = createClient({ baseUrl: api, token });
  const heads = parseAs(StoreHeadsSchema, await unwrap(client.v1.audit.heads.$get()), 'GET /v1/audit/heads');
  const journal = async (runId: string) => {
    const response = await client.v1.runs[':runId'].journal.$get({ param: { runId: encodeURIComponent(runId) }, query: { format: 'ndjson' } });
    if (!response.ok) throw await errorOf(response);
    return parseJournal(await response.text());
  };
  return { heads, journal };
}

/** The local data directory's heads and journals, read from its SQLite file. */
async function localHeads(dataDir: string): Promise<{ heads: StoreHeads; journal: (runId: string) => Promise<JournalEvent[]>; close: () => Promise<void> }> {
  const file = join(resolve(dataDir), 'cugar.db');
  if (!existsSync(file)) usage(`no CUGAr data in ${dataDir}`);
  const store = new SqliteStore(file);
  const runs = (await store.listRuns()).map(({ runId, profile, status, head, signature }) => ({
    runId,
    profile,
    status,
    head,
    ...(signature ? { signature } : {}),
  }));
  return { heads: { log: await store.readHeadLog(), runs }, journal: (runId) => store.readJournal(runId), close: () => store.close() };
}

/** `cugar verify --public-key K [file | runId…]`; resolves to the exit code. */
export async function verifyWithKey(args: readonly string[], options: VerifyOptions, output: Output): Promise<number> {
  const keys = await loadKeys(options['public-key']);
  const keyIds = [...keys.keys()];
  const file = args[0] && /\.(nd)?json$/.test(args[0]) ? args[0] : undefined;
  if (file) {
    const result = verifyFile(file, keys, options.heads, parseSince(options.since));
    if (options.json) output.out(JSON.stringify({ ...result, keys: keyIds }));
    else {
      output.out(
        `${result.ok ? paint(output, 'green', 'verified') : paint(output, 'red', 'NOT verified')} ${result.runId} at seq ${result.head.seq}: head ${result.state}`,
      );
      for (const problem of result.problems) output.out(`  ${problem}`);
    }
    return result.ok ? 0 : 1;
  }
  const api = options.api ?? process.env['CUGAR_API'];
  const source = api
    ? { ...(await serverHeads(api, options.token ?? process.env['CUGAR_TOKEN'] ?? '')), close: async () => undefined }
    : await localHeads(options['data-dir'] ?? process.env['CUGAR_DATA_DIR'] ?? '.cugar');
  try {
    // Each journal is checked against its listed head; a journal as recorded (the local data,
    // or a raw export) also shows whether a running run still passes through its last entry in
    // the log. Only that one hash is kept.
    const lastLogged = new Map(source.heads.log.entries.map((entry) => [entry.runId, entry.seq]));
    const broken = new Map<string, string>();
    const passes = new Map<string, string | undefined>();
    for (const listed of source.heads.runs.filter((run) => !args.length || args.includes(run.runId))) {
      const journal = await source.journal(listed.runId);
      const problem = checkJournal(journal, listed.head);
      if (problem) broken.set(listed.runId, problem);
      const seq = lastLogged.get(listed.runId);
      if (seq !== undefined && !derivedFromOf(journal)) passes.set(listed.runId, journal[seq]?.hash);
    }
    const withJournals = source.heads.runs.map((run) => (passes.has(run.runId) ? { ...run, hashAt: () => passes.get(run.runId) } : run));
    const store = verifyStoreHeads({ log: source.heads.log, runs: withJournals }, checksFor(keys), parseSince(options.since));
    const wanted = args.length ? store.runs.filter((run) => args.includes(run.runId)) : store.runs;
    const runs = [];
    for (const run of wanted) {
      const reason = run.reason ?? broken.get(run.runId);
      runs.push({ runId: run.runId, status: run.status ?? 'missing', head: run.signature, ok: reason === undefined, ...(reason ? { reason } : {}) });
    }
    const ok = store.log.ok && runs.every((run) => run.ok);
    const summary = logSummary(store.log, source.heads.log);
    if (options.json) output.out(JSON.stringify({ ok, keys: keyIds, log: summary, runs }));
    else {
      const log = store.log;
      output.out(
        `log of heads: ${log.ok ? paint(output, 'green', log.signature) : paint(output, 'red', log.signature)} (${log.signedSize} of ${log.size} entries signed)${log.problem ? ` — ${log.problem}` : ''}`,
      );
      if (log.predating) output.out(`  ${log.predating} run(s) predate the log: it covers them from the head they had when it started`);
      if (log.pruned.length)
        output.out(
          `  ${log.pruned.length} run(s) pruned by retention: their journals are gone, their final heads stay in the log (${log.pruned
            .slice(0, 10)
            .map((p) => p.runId)
            .join(', ')}${log.pruned.length > 10 ? ', …' : ''})`,
        );
      if (summary.since) output.out(`  to check next time that the log only grew: --since ${summary.since}`);
      for (const run of runs)
        output.out(
          `${run.ok ? paint(output, 'green', run.head.padEnd(8)) : paint(output, 'red', 'BAD'.padEnd(8))} ${run.runId} ${run.status}${run.reason ? `: ${run.reason}` : ''}`,
        );
    }
    return ok ? 0 : 1;
  } finally {
    await source.close();
  }
}
