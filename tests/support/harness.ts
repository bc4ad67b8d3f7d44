import { z } from 'zod';
import {
  InMemoryStore,
  ToolRegistry,
  registerBuiltinTools,
  type AppendBatch,
  type ApprovalRecord,
  type JournalEvent,
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
