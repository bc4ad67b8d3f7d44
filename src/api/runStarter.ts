import type { z } from '@hono/zod-openapi';
import { ConflictError, canonicalJson, sha256Hex, type JournalEvent, type RunOutcome } from '../core/index.ts';
import { HttpError } from './errors.ts';
import type { Runtime } from './runtime.ts';
import type { RunBody } from './schemas.ts';
import type { Principal } from './security.ts';

/** A run `POST /v1/runs` accepted: durable, and either still driven here (`outcome`) or found in the store. */
export interface StartedRun {
  runId: string;
  traceId: string;
  /** Settles when the run completes, fails or pauses; absent when the run was started elsewhere or earlier. */
  outcome?: Promise<RunOutcome>;
}

/** Keeps a run's outcome going after its request is answered (a Worker's `waitUntil`) and reports its failure. */
export type KeepAlive = (runId: string, outcome: Promise<RunOutcome>) => void;

/** Starts runs for the API: at once, or once per Idempotency-Key. */
export interface RunStarter {
  /**
   * Start `request` as `principal`. Resolves once the run's first event is durable; bad input
   * throws before anything is written. With `idempotencyKey`, one run per (principal, key):
   * a duplicate finds that run (422 if its body differs). `keepAlive` receives the outcome of a
   * run started by this call, which outlives the request.
   */
  start(principal: Principal, request: z.output<typeof RunBody>, idempotencyKey: string | undefined, keepAlive: KeepAlive): Promise<StartedRun>;
}

/** The inputs recorded in a run's first event, as far as idempotency needs them. */
function recordedBodyHash(first: JournalEvent | undefined): unknown {
  return first?.type === 'stage' ? first.data.inputs?.metadata['idempotencyBodyHash'] : undefined;
}

/** Build the run starter of one app. */
export function createRunStarter(runtime: Runtime): RunStarter {
  // Duplicates of a key that arrive while its run is being driven here share one entry, taken
  // before any await, and can wait for the same outcome.
  const inflight = new Map<string, Promise<StartedRun & { created: boolean }>>();

  const launch = async (request: z.output<typeof RunBody>, keepAlive: KeepAlive, runId?: string, bodyHash?: string): Promise<StartedRun> => {
    const metadata = bodyHash ? { ...(request.metadata ?? {}), idempotencyBodyHash: bodyHash } : request.metadata;
    const launched = await runtime.orchestrator.launch(request.goal, request.profile, {
      ...request,
      ...(runId ? { runId } : {}),
      ...(metadata ? { metadata } : {}),
    });
    keepAlive(launched.runId, launched.outcome);
    return launched;
  };

  const existing = async (runId: string): Promise<StartedRun & { created: false }> => {
    const summary = await runtime.store.getRun(runId);
    return { runId, traceId: summary?.traceId ?? '', created: false };
  };

  return {
    async start(principal, request, key, keepAlive) {
      if (!key) return launch(request, keepAlive);
      if (request.runId)
        throw new HttpError(400, 'validation_failed', 'invalid request: runId: cannot be combined with an Idempotency-Key (the key decides the run id)');
      // The run id is derived from the principal and the key, so duplicates find it even after a restart.
      const runId = `run_${sha256Hex(`${principal.id}:${key}`).slice(0, 32)}`;
      const bodyHash = sha256Hex(canonicalJson(request));
      let pending = inflight.get(runId);
      const first = !pending;
      if (!pending) {
        pending = (async () => {
          if (await runtime.store.getRun(runId)) return existing(runId);
          try {
            return { ...(await launch(request, keepAlive, runId, bodyHash)), created: true };
          } catch (error) {
            if (error instanceof ConflictError && error.code === 'run_exists') return existing(runId);
            throw error;
          }
        })();
        inflight.set(runId, pending);
        const entry = pending;
        void entry
          .then((started) => started.outcome)
          .catch(() => undefined)
          .finally(() => inflight.delete(runId));
      }
      const started = await pending;
      if (!(first && started.created)) {
        const [initial] = await runtime.store.readJournal(runId, 0);
        if (recordedBodyHash(initial) !== bodyHash) throw new HttpError(422, 'idempotency_mismatch', 'this Idempotency-Key was used with a different body');
      }
      return { runId: started.runId, traceId: started.traceId, ...(started.outcome ? { outcome: started.outcome } : {}) };
    },
  };
}
