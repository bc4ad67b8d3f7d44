import { DurableObject } from 'cloudflare:workers';
import {
  ConflictError,
  CugarError,
  FlatVectorIndex,
  checkBatch,
  filterFacts,
  parseConfig,
  type AppendBatch,
  type ApprovalFilter,
  type ApprovalRecord,
  type BudgetUsage,
  type FactQuery,
  type FactRecord,
  type JournalEvent,
  type JournalHead,
  type RunFilter,
  type RunSummary,
  type VectorBackend,
  type VectorHit,
  type VectorRecord,
  type VectorSearchOptions,
} from '../core/index.ts';
import { createApp } from '../api/app.ts';
import { createRuntime, type HostStore } from '../api/runtime.ts';
import { parseTokenMap } from '../api/tokens.ts';

/** A Durable Object namespace, as far as this host uses it. */
interface Namespace<T> {
  idFromName(name: string): unknown;
  get(id: unknown): T;
}

/** The Worker's bindings (see wrangler.jsonc). */
export interface Env {
  RUNS: Namespace<RunObject>;
  DIRECTORY: Namespace<DirectoryObject>;
  PROFILES: Namespace<ProfileObject>;
  /** `token=profile1,profile2;other=*`; without tokens every /v1 request is refused. */
  CUGAR_TOKENS?: string;
  CUGAR_CORS_ORIGINS?: string;
}

type Failure = { ok: false; code: string; message: string; conflict: boolean };
const pad = (seq: number) => String(seq).padStart(12, '0');

/**
 * One run: its journal lives in this object's storage, keyed by sequence number. A Durable
 * Object handles one request at a time, so checking the head and writing the batch can never
 * interleave with another writer.
 */
export class RunObject extends DurableObject<Env> {
  async append(batch: AppendBatch): Promise<{ ok: true } | Failure> {
    const head = await this.ctx.storage.get<JournalHead>('head');
    try {
      checkBatch(batch, head);
    } catch (error) {
      const typed = error as CugarError;
      return { ok: false, code: typed.code, message: typed.message, conflict: typed instanceof ConflictError };
    }
    const last = batch.events.at(-1)!;
    await this.ctx.storage.transaction(async (txn) => {
      // A put takes at most 128 keys; the transaction keeps a large batch atomic.
      for (let i = 0; i < batch.events.length; i += 100) {
        const entries: Record<string, JournalEvent> = {};
        for (const event of batch.events.slice(i, i + 100)) entries[`e:${pad(event.seq)}`] = event;
        await txn.put(entries);
      }
      await txn.put('head', { seq: last.seq, hash: last.hash });
    });
    return { ok: true };
  }

  async readJournal(fromSeq: number): Promise<JournalEvent[]> {
    return [...(await this.ctx.storage.list<JournalEvent>({ prefix: 'e:', start: `e:${pad(fromSeq)}` })).values()];
  }
}

/**
 * The listing side: run summaries, approvals and profile spending, written after each batch
 * lands in its run's object. The journals stay the source of truth; this index is what makes
 * "runs by status" and "pending approvals" one read.
 */
export class DirectoryObject extends DurableObject<Env> {
  async record(run: RunSummary, approvals: readonly ApprovalRecord[], usage?: { profile: string; delta: BudgetUsage }): Promise<void> {
    const entries: Record<string, unknown> = { [`run:${run.runId}`]: run };
    for (const approval of approvals) entries[`approval:${approval.approvalId}`] = approval;
    if (usage) {
      const used = (await this.ctx.storage.get<BudgetUsage>(`usage:${usage.profile}`)) ?? { cost: 0, calls: 0, tokens: 0 };
      entries[`usage:${usage.profile}`] = { cost: used.cost + usage.delta.cost, calls: used.calls + usage.delta.calls, tokens: used.tokens + usage.delta.tokens };
    }
    await this.ctx.storage.put(entries);
  }

  async getRun(runId: string): Promise<RunSummary | undefined> {
    return this.ctx.storage.get<RunSummary>(`run:${runId}`);
  }

  async listRuns(filter: RunFilter): Promise<RunSummary[]> {
    const runs = [...(await this.ctx.storage.list<RunSummary>({ prefix: 'run:' })).values()]
      .filter((r) => (!filter.status || r.status === filter.status) && (!filter.profile || r.profile === filter.profile) && (!filter.traceId || r.traceId === filter.traceId))
      .sort((a, b) => b.createdAt - a.createdAt || (a.runId < b.runId ? -1 : 1));
    return filter.limit ? runs.slice(0, filter.limit) : runs;
  }

  async getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    return this.ctx.storage.get<ApprovalRecord>(`approval:${approvalId}`);
  }

  async listApprovals(filter: ApprovalFilter): Promise<ApprovalRecord[]> {
    return [...(await this.ctx.storage.list<ApprovalRecord>({ prefix: 'approval:' })).values()]
      .filter((a) => (!filter.status || a.status === filter.status) && (!filter.profile || a.profile === filter.profile) && (!filter.runId || a.runId === filter.runId))
      .sort((a, b) => a.requestedAt - b.requestedAt || (a.approvalId < b.approvalId ? -1 : 1));
  }

  async getProfileUsage(profile: string): Promise<BudgetUsage> {
    return (await this.ctx.storage.get<BudgetUsage>(`usage:${profile}`)) ?? { cost: 0, calls: 0, tokens: 0 };
  }
}

/**
 * One profile's memory: facts and vectors in this object's storage (vectors as Float32
 * bytes), with the vectors searched from an in-memory index that stays warm between requests.
 * A profile per object keeps profiles apart by construction.
 */
export class ProfileObject extends DurableObject<Env> {
  #index: FlatVectorIndex | undefined;

  async putFacts(facts: readonly FactRecord[]): Promise<void> {
    const entries: Record<string, FactRecord> = {};
    for (const fact of facts) entries[`fact:${fact.id}`] = fact;
    await this.ctx.storage.put(entries);
  }

  async queryFacts(query?: FactQuery): Promise<FactRecord[]> {
    return filterFacts([...(await this.ctx.storage.list<FactRecord>({ prefix: 'fact:' })).values()], query);
  }

  async namespaces(): Promise<string[]> {
    return [...new Set((await this.queryFacts()).map((f) => f.namespace))].sort();
  }

  async deleteFacts(namespace?: string): Promise<number> {
    const keys = (await this.queryFacts(namespace ? { namespace } : {})).map((f) => `fact:${f.id}`);
    return keys.length ? this.ctx.storage.delete(keys) : 0;
  }

  async #vectors(dimension: number): Promise<FlatVectorIndex> {
    if (!this.#index || this.#index.dimension !== dimension) {
      const rows = await this.ctx.storage.list<{ id: string; vector: ArrayBuffer; metadata: Record<string, unknown> }>({ prefix: 'vec:' });
      const index = new FlatVectorIndex(dimension, rows.size);
      index.upsert([...rows.values()].map((row) => ({ id: row.id, vector: new Float32Array(row.vector), metadata: row.metadata })));
      this.#index = index;
    }
    return this.#index;
  }

  async vectorUpsert(dimension: number, records: VectorRecord[]): Promise<void> {
    const index = await this.#vectors(dimension);
    for (const record of records) index.validate(record);
    const entries: Record<string, unknown> = {};
    for (const r of records) entries[`vec:${r.id}`] = { id: r.id, vector: r.vector.slice().buffer, metadata: r.metadata ?? {} };
    const keys = Object.keys(entries);
    await this.ctx.storage.transaction(async (txn) => {
      for (let i = 0; i < keys.length; i += 100) await txn.put(Object.fromEntries(keys.slice(i, i + 100).map((k) => [k, entries[k]])));
    });
    index.upsert(records);
  }

  async vectorSearch(dimension: number, query: Float32Array, options?: VectorSearchOptions): Promise<VectorHit[]> {
    return (await this.#vectors(dimension)).search(query, options);
  }

  async vectorDelete(dimension: number, ids: string[]): Promise<number> {
    const index = await this.#vectors(dimension);
    if (ids.length) await this.ctx.storage.delete(ids.map((id) => `vec:${id}`));
    return index.delete(ids);
  }

  async vectorCount(dimension: number): Promise<number> {
    return (await this.#vectors(dimension)).size;
  }

  async vectorList(dimension: number, withVectors: boolean): Promise<VectorRecord[]> {
    return (await this.#vectors(dimension)).records(withVectors);
  }
}

/** The {@link HostStore} of the Worker: each call goes to the Durable Object that owns the data. */
export class DurableObjectStore implements HostStore {
  constructor(private readonly env: Env) {}

  #run(runId: string): RunObject {
    return this.env.RUNS.get(this.env.RUNS.idFromName(runId));
  }
  #directory(): DirectoryObject {
    return this.env.DIRECTORY.get(this.env.DIRECTORY.idFromName('directory'));
  }
  #profile(profile: string): ProfileObject {
    return this.env.PROFILES.get(this.env.PROFILES.idFromName(profile));
  }

  async append(batch: AppendBatch): Promise<void> {
    const result = await this.#run(batch.runId).append(batch);
    if (!result.ok) {
      throw result.conflict ? new ConflictError(result.message, { code: result.code }) : new CugarError(result.message, { code: result.code, failureMode: 'USER' });
    }
    await this.#directory().record(batch.run, batch.approvals ?? [], batch.profileUsage);
  }
  readJournal(runId: string, fromSeq = 0): Promise<JournalEvent[]> {
    return this.#run(runId).readJournal(fromSeq);
  }
  getRun(runId: string): Promise<RunSummary | undefined> {
    return this.#directory().getRun(runId);
  }
  listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
    return this.#directory().listRuns(filter);
  }
  getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    return this.#directory().getApproval(approvalId);
  }
  listApprovals(filter: ApprovalFilter = {}): Promise<ApprovalRecord[]> {
    return this.#directory().listApprovals(filter);
  }
  getProfileUsage(profile: string): Promise<BudgetUsage> {
    return this.#directory().getProfileUsage(profile);
  }
  async putFacts(facts: readonly FactRecord[]): Promise<void> {
    const byProfile = new Map<string, FactRecord[]>();
    for (const fact of facts) byProfile.set(fact.profile, [...(byProfile.get(fact.profile) ?? []), fact]);
    for (const [profile, list] of byProfile) await this.#profile(profile).putFacts(list);
  }
  queryFacts(profile: string, query?: FactQuery): Promise<FactRecord[]> {
    return this.#profile(profile).queryFacts(query);
  }
  namespaces(profile: string): Promise<string[]> {
    return this.#profile(profile).namespaces();
  }
  deleteFacts(profile: string, namespace?: string): Promise<number> {
    return this.#profile(profile).deleteFacts(namespace);
  }
  vectors(dimension: number): VectorBackend {
    const profileOf = (profile: string) => this.#profile(profile);
    return {
      dimension,
      connect: async () => undefined,
      upsert: (profile, records) => profileOf(profile).vectorUpsert(dimension, [...records]),
      search: (profile, query, options) => profileOf(profile).vectorSearch(dimension, query, options),
      delete: (profile, ids) => profileOf(profile).vectorDelete(dimension, [...ids]),
      count: (profile) => profileOf(profile).vectorCount(dimension),
      list: (profile, options) => profileOf(profile).vectorList(dimension, options?.vectors === true),
    };
  }
}

let app: Promise<ReturnType<typeof createApp>> | undefined;

/**
 * The Cloudflare Worker: the same Hono app as the Node host, over Durable Objects. `ctx` goes
 * to the app so a run accepted with 202 keeps going (`waitUntil`) after its response.
 */
export default {
  fetch(request: Request, env: Env, ctx: import('hono').ExecutionContext): Promise<Response> {
    app ??= (async () => {
      const config = parseConfig({}).config;
      const runtime = await createRuntime(new DurableObjectStore(env), config);
      const corsOrigins = (env.CUGAR_CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean);
      return createApp(runtime, { tokens: parseTokenMap(env.CUGAR_TOKENS), corsOrigins });
    })();
    return app.then((instance) => instance.fetch(request, env, ctx));
  },
};
