import type Database from 'better-sqlite3';
import type { HeadSigner, RunStatus, RunSummary } from '../core/index.ts';
import { HeadLogWriter, logHeadAfter, nextLogEntry, type AppendBatch, type HeadLog, type HeadLogEntry, type LogHead } from '../core/stores.ts';

/** The tables of the log of heads (see `journal/headLog.ts`); a database without them starts its log with its next append. */
export const HEAD_LOG_SCHEMA = `
CREATE TABLE IF NOT EXISTS head_log (
  idx INTEGER PRIMARY KEY, run_id TEXT NOT NULL, profile TEXT NOT NULL, seq INTEGER NOT NULL, hash TEXT NOT NULL,
  flags INTEGER NOT NULL, log_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS head_log_signature (
  id INTEGER PRIMARY KEY CHECK (id = 1), size INTEGER NOT NULL, hash TEXT NOT NULL, key_id TEXT NOT NULL, sig TEXT NOT NULL
);
`;

type LogRow = { idx: number; run_id: string; profile: string; seq: number; hash: string; flags: number; log_hash: string };
/** `head_log.flags`: the entry is a checkpoint, predates the log, or finished its run. */
const REST = 1;
const PREDATES = 2;
const FINAL = 4;
const PRUNED = 8;

function entryOf(row: LogRow): HeadLogEntry {
  return {
    index: row.idx,
    runId: row.run_id,
    profile: row.profile,
    seq: row.seq,
    hash: row.hash,
    ...(row.flags & REST ? { rest: true as const } : {}),
    ...(row.flags & FINAL ? { final: true as const } : {}),
    ...(row.flags & PREDATES ? { predates: true as const } : {}),
    ...(row.flags & PRUNED ? { pruned: true as const } : {}),
    logHash: row.log_hash,
  };
}

/**
 * The SQLite store's log of heads, written inside the store's append transactions. The tail
 * this connection last committed is remembered, so an append reads nothing: the log is
 * contiguous, so if another connection (another process on the same file) wrote on, the first
 * insert of a transaction collides at the remembered position, and only then is the tail read.
 */
export class SqliteHeadLog {
  readonly #statements;
  readonly #signer: HeadSigner | undefined;
  #committed: LogHead | undefined;
  #open: HeadLogWriter | undefined;

  constructor(db: Database.Database, signer: HeadSigner | undefined) {
    db.exec(HEAD_LOG_SCHEMA);
    this.#signer = signer;
    this.#statements = {
      tail: db.prepare<[], LogRow>('SELECT * FROM head_log ORDER BY idx DESC LIMIT 1'),
      all: db.prepare<[], LogRow>('SELECT * FROM head_log ORDER BY idx'),
      insert: db.prepare('INSERT INTO head_log (idx, run_id, profile, seq, hash, flags, log_hash) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      signature: db.prepare<[], { size: number; hash: string; key_id: string; sig: string }>(
        'SELECT size, hash, key_id, sig FROM head_log_signature WHERE id = 1',
      ),
      putSignature: db.prepare(
        'INSERT INTO head_log_signature (id, size, hash, key_id, sig) VALUES (1, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET size = excluded.size, hash = excluded.hash, key_id = excluded.key_id, sig = excluded.sig',
      ),
      runs: db.prepare<[], { run_id: string; profile: string; status: RunStatus; summary: string }>('SELECT run_id, profile, status, summary FROM runs'),
      read: db.transaction(() => ({ rows: this.#statements.all.all(), signed: this.#statements.signature.get() })),
    };
  }

  /** The log for one transaction. Its first write on a database that holds runs enters them as predating the log. */
  open(): HeadLogWriter {
    this.#open = new HeadLogWriter(this.#committed ?? this.#readTail(), this.#signer);
    if (this.#committed || this.#open.tail.size > 0) return this.#open;
    // A summary that cannot be read enters nothing: the audit reports that run on its own.
    const runs = this.#statements.runs.all().flatMap((row) => {
      try {
        const head = (JSON.parse(row.summary) as Partial<RunSummary>).head;
        return head ? [{ runId: row.run_id, profile: row.profile, status: row.status, head }] : [];
      } catch {
        return [];
      }
    });
    for (const entry of this.#open.predating(runs)) this.#insert(entry);
    return this.#open;
  }

  /** Write `batch`'s entry, inside its savepoint (an error rolls the batch back, entry and all). */
  write(batch: AppendBatch, log: HeadLogWriter): void {
    let entry = log.next(batch);
    if (!entry) return;
    try {
      this.#insert(entry);
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY' || log.entries.length > 0) throw error;
      log.rebase(this.#readTail());
      entry = log.next(batch)!;
      this.#insert(entry);
    }
    log.take(entry);
  }

  /**
   * Record that retention deleted `run`'s journal: an entry at its final head marked `pruned`,
   * taken as a checkpoint so the transaction signs the new head (see `journal/headLog.ts`).
   */
  writePruned(run: Pick<RunSummary, 'runId' | 'profile' | 'head'>, log: HeadLogWriter): HeadLogEntry {
    const entry = nextLogEntry(log.tail, {
      runId: run.runId,
      profile: run.profile,
      seq: run.head.seq,
      hash: run.head.hash,
      rest: true,
      final: true,
      pruned: true,
    });
    this.#insert(entry);
    log.take(entry, true);
    return entry;
  }

  /** At the end of the transaction: sign the new head when it holds a checkpoint. */
  seal(log: HeadLogWriter): void {
    const signed = log.seal();
    if (signed) this.#statements.putSignature.run(signed.size, signed.hash, signed.keyId, signed.sig);
  }

  /** The transaction committed: its tail is the one to append after. */
  commit(): void {
    this.#committed = this.#open?.tail;
    this.#open = undefined;
  }

  /** The transaction failed: read the tail again next time. */
  forget(): void {
    this.#committed = undefined;
    this.#open = undefined;
  }

  /** The whole log and its signed head, read in one transaction. */
  read(): HeadLog {
    const { rows, signed } = this.#statements.read();
    return { entries: rows.map(entryOf), ...(signed ? { signed: { size: signed.size, hash: signed.hash, keyId: signed.key_id, sig: signed.sig } } : {}) };
  }

  #readTail(): LogHead {
    const row = this.#statements.tail.get();
    return logHeadAfter(row && entryOf(row));
  }

  #insert(entry: HeadLogEntry): void {
    const flags = (entry.rest ? REST : 0) | (entry.predates ? PREDATES : 0) | (entry.final ? FINAL : 0) | (entry.pruned ? PRUNED : 0);
    this.#statements.insert.run(entry.index, entry.runId, entry.profile, entry.seq, entry.hash, flags, entry.logHash);
  }
}
