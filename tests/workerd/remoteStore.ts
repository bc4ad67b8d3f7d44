import type { AppendBatch, HostStore, VectorBackend } from '../../src/core/index.ts';
import { reviveError, type Outcome } from '../../src/edge/errorRecord.ts';
import { decodeCall, encodeCall } from './storeCall.ts';
import type { Crash } from './storeWorker.ts';

/** A {@link HostStore} whose every call runs in the test worker, on the Durable Object store named `name`. */
export interface RemoteStore extends HostStore {
  readonly name: string;
  /** Write `batch` as a writer that died (see {@link Crash}); `stale` dates its staged entry past the grace period. Answers whether the run object took the write. */
  crash(batch: AppendBatch, at: Crash, stale: boolean): Promise<boolean>;
}

/** A {@link RemoteStore} over `post`, which sends a request body to the test worker and answers its response body. */
export function remoteStore(name: string, post: (body: string) => Promise<string>): RemoteStore {
  const call = async <T>(method: string, ...args: unknown[]): Promise<T> => {
    // JSON turns a trailing `undefined` into `null`, which would defeat a default parameter.
    while (args.length && args.at(-1) === undefined) args.pop();
    const outcome = decodeCall(await post(encodeCall({ name, method, args }))) as Outcome<T>;
    if (!outcome.ok) throw reviveError(outcome.error);
    return outcome.value;
  };
  const vectors = (dimension: number): VectorBackend => ({
    dimension,
    connect: () => call('vectors.connect', dimension),
    upsert: (profile, records) => call('vectors.upsert', dimension, profile, records),
    search: (profile, query, options) => call('vectors.search', dimension, profile, query, options),
    delete: (profile, ids) => call('vectors.delete', dimension, profile, ids),
    count: (profile) => call('vectors.count', dimension, profile),
    list: (profile, options) => call('vectors.list', dimension, profile, options),
  });
  return {
    name,
    crash: (batch, at, stale) => call('crash', batch, at, stale),
    append: (batch) => call('append', batch),
    readJournal: (runId, fromSeq) => call('readJournal', runId, fromSeq),
    getRun: (runId) => call('getRun', runId),
    listRuns: (filter) => call('listRuns', filter),
    getApproval: (approvalId) => call('getApproval', approvalId),
    listApprovals: (filter) => call('listApprovals', filter),
    getProfileUsage: (profile) => call('getProfileUsage', profile),
    readHeadLog: () => call('readHeadLog'),
    putFacts: (facts) => call('putFacts', facts),
    queryFacts: (profile, query) => call('queryFacts', profile, query),
    namespaces: (profile) => call('namespaces', profile),
    deleteFacts: (profile, namespace) => call('deleteFacts', profile, namespace),
    vectors,
  };
}
