import { z } from 'zod';
import type { Orchestrator } from '../../src/core/index.ts';
import {
  InMemoryStore,
  ToolRegistry,
  registerBuiltinTools,
  type AppendBatch,
  type ApprovalRecord,
  type JournalEvent,
  type Random,
  type RunSummary,
  type Store,
} from '../../src/core/index.ts';

/** Thrown by {@link CrashingStore} to stand for the process dying before a write lands. */
export class Crash extends Error {
  constructor() {
    super('simulated crash');
  }
}

/**
 * A store that "crashes" on chosen append calls: the batch is not written and the caller
 * gets {@link Crash}, exactly as if the process had died just before the write.
 */
export class CrashingStore implements Store {
  appends = 0;
  constructor(
    readonly inner: Store,
    private readonly crashAt: ReadonlySet<number>,
  ) {}
  async append(batch: AppendBatch): Promise<void> {
    this.appends++;
    if (this.crashAt.has(this.appends)) throw new Crash();
    return this.inner.append(batch);
  }
  readJournal(runId: string, fromSeq?: number): Promise<JournalEvent[]> {
    return this.inner.readJournal(runId, fromSeq);
  }
  getRun(runId: string): Promise<RunSummary | undefined> {
    return this.inner.getRun(runId);
  }
  listRuns(filter?: Parameters<Store['listRuns']>[0]): Promise<RunSummary[]> {
    return this.inner.listRuns(filter);
  }
  getApproval(id: string): Promise<ApprovalRecord | undefined> {
    return this.inner.getApproval(id);
  }
  listApprovals(filter?: Parameters<Store['listApprovals']>[0]) {
    return this.inner.listApprovals(filter);
  }
  getProfileUsage(profile: string) {
    return this.inner.getProfileUsage(profile);
  }
  readHeadLog() {
    return this.inner.readHeadLog();
  }
}

/** Side effects seen by the ledger tools: every execution, and effects deduplicated by idempotency key. */
export class Ledger {
  executions: Array<{ tool: string; key: string; attempt: number }> = [];
  effects = new Map<string, number>();

  record(tool: string, key: string, attempt: number, dedupe: boolean): void {
    this.executions.push({ tool, key, attempt });
    if (dedupe && this.effects.has(key)) return;
    this.effects.set(key, (this.effects.get(key) ?? 0) + 1);
  }
}

/** A registry with the demo tools plus ledger tools in profile `ledger`: two idempotent writers and a non-idempotent mailer. */
export function ledgerRegistry(ledger: Ledger, extra?: (registry: ToolRegistry) => void): ToolRegistry {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  registerBuiltinTools(registry, 'ledger');
  const n = z.object({ n: z.number().int() });
  registry.register('ledger', 'record_a', {
    description: 'Record entry A in the ledger',
    parameters: n,
    idempotent: true,
    handler: ({ n }, context) => {
      ledger.record('record_a', context.idempotencyKey, context.attempt, true);
      return { recorded: 'a', n };
    },
  });
  registry.register('ledger', 'record_b', {
    description: 'Record entry B in the ledger',
    parameters: n,
    idempotent: true,
    handler: ({ n }, context) => {
      ledger.record('record_b', context.idempotencyKey, context.attempt, true);
      return { recorded: 'b', n: n * 2 };
    },
  });
  registry.register('ledger', 'send_email', {
    description: 'Send an email; cannot be undone or deduplicated',
    parameters: z.object({ to: z.string() }),
    idempotent: false,
    handler: ({ to }, context) => {
      ledger.record('send_email', context.idempotencyKey, context.attempt, false);
      return `mailed ${to}`;
    },
  });
  extra?.(registry);
  return registry;
}

/** A fresh in-memory store. */
export function memoryStore(): InMemoryStore {
  return new InMemoryStore();
}

/**
 * Drive run `runId` to completion through orchestrators that crash: each new "process" gets a
 * {@link CrashingStore} over `inner` that fails at up to two of its first `appendsAtRisk`
 * appends (seeded by `random`; the fourth process and later never crash). A paused run is
 * approved by an operator; anything else is resumed. Resolves with the crashes seen and the
 * approvals that were for unknown outcomes; fails after 30 attempts.
 */
export async function driveThroughCrashes(options: {
  inner: Store;
  runId: string;
  goal: string;
  profile: string;
  random: Random;
  appendsAtRisk: number;
  make: (store: Store) => Orchestrator;
}): Promise<{ crashes: number; escalations: number }> {
  const { inner, runId, random } = options;
  let instance = 0;
  let crashes = 0;
  let escalations = 0;
  const next = () => {
    const points = new Set<number>();
    if (instance++ < 3) for (let k = 0; k < 2; k++) if (random.next() < 0.7) points.add(1 + Math.floor(random.next() * options.appendsAtRisk));
    return options.make(new CrashingStore(inner, points));
  };
  for (let guard = 0; ; guard++) {
    if (guard >= 30) throw new Error(`run ${runId} did not settle`);
    const summary = await inner.getRun(runId);
    if (summary?.status === 'completed') return { crashes, escalations };
    try {
      if (!summary) await next().start(options.goal, options.profile, { runId });
      else if (summary.status === 'paused') {
        const approval = (await inner.listApprovals({ runId, status: 'pending' }))[0]!;
        if (approval.reason.startsWith('unknown_outcome')) escalations++;
        await next().resolveApproval(approval.approvalId, { decision: 'approve', by: 'operator', reason: 'checked the mail log' });
      } else await next().resume(runId);
    } catch (error) {
      if (!(error instanceof Crash)) throw error;
      crashes++;
    }
  }
}
