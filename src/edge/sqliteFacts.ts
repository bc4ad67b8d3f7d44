import type Database from 'better-sqlite3';
import { SystemError, type FactQuery, type FactRecord } from '../core/index.ts';
import { GroupCommit, filterFacts } from '../core/stores.ts';
import { parseRow } from './sqliteVectorRows.ts';

/**
 * The `facts` table of a {@link SqliteStore}. Facts written in the same turn — memory in the loop
 * of concurrent runs, each writing its facts when it ends — share one transaction, as journal
 * appends do; each write resolves once its transaction committed.
 */
export class SqliteFacts {
  readonly #db: Database.Database;
  readonly #put: Database.Statement<[string, string, string, number, string]>;
  readonly #commits: GroupCommit<readonly FactRecord[]>;
  #transactions = 0;

  constructor(db: Database.Database, options: { coalesce: boolean }) {
    this.#db = db;
    this.#put = db.prepare('INSERT OR REPLACE INTO facts (id, profile, namespace, at, record) VALUES (?, ?, ?, ?, ?)');
    this.#commits = new GroupCommit<readonly FactRecord[]>({
      commit: (groups) => this.#commit(groups),
      failure: (error) => new SystemError('the memory write failed', { code: 'write_failed', cause: error }),
      coalesce: options.coalesce,
      // setImmediate runs after the I/O callbacks of this turn: every run finishing in it gets to join.
      schedule: (flush) => void setImmediate(flush),
    });
  }

  /** Write transactions taken so far. */
  get transactions(): number {
    return this.#transactions;
  }

  put(facts: readonly FactRecord[]): Promise<void> {
    return this.#commits.enqueue(facts);
  }

  /** Commit what is queued now (on shutdown). */
  flush(): void {
    void this.#commits.flush();
  }

  #commit(groups: ReadonlyArray<readonly FactRecord[]>): Map<number, unknown> {
    this.#transactions += 1;
    this.#db.transaction(() => {
      for (const facts of groups) for (const fact of facts) this.#put.run(fact.id, fact.profile, fact.namespace, fact.at, JSON.stringify(fact));
    })();
    return new Map();
  }

  query(profile: string, query?: FactQuery): FactRecord[] {
    const rows = (
      query?.namespace
        ? this.#db.prepare('SELECT record FROM facts WHERE profile = ? AND namespace = ?').all(profile, query.namespace)
        : this.#db.prepare('SELECT record FROM facts WHERE profile = ?').all(profile)
    ) as Array<{ record: string }>;
    return filterFacts(
      rows.map((row) => parseRow<FactRecord>(row.record, 'fact')),
      query,
    );
  }

  namespaces(profile: string): string[] {
    return (this.#db.prepare('SELECT DISTINCT namespace FROM facts WHERE profile = ? ORDER BY namespace').all(profile) as Array<{ namespace: string }>).map(
      (r) => r.namespace,
    );
  }

  delete(profile: string, namespace?: string): number {
    const result = namespace
      ? this.#db.prepare('DELETE FROM facts WHERE profile = ? AND namespace = ?').run(profile, namespace)
      : this.#db.prepare('DELETE FROM facts WHERE profile = ?').run(profile);
    return result.changes;
  }
}
