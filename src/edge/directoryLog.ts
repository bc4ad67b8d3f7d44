import type { DurableObjectStorage } from 'cloudflare:workers';
import type { HeadSigner, RunSummary } from '../core/index.ts';
import { HeadLogWriter, type HeadLog, type HeadLogEntry, type LogHead, type SignedLogHead } from '../core/stores.ts';
import { pad } from './runObject.ts';

// The directory object's log of heads. Durable Objects have no transaction across objects, so
// the log lives where appends become visible: the directory promotes each landed append in one
// storage transaction (see DirectoryObject), and the entry is written in that same transaction.
// Keys: `log:e:<index>` per entry, `log:tail` for the head, `log:signed` for the signed head.

const TAIL = 'log:tail';
const SIGNED = 'log:signed';
const ENTRIES = 'log:e:';

/** The storage key of entry `index`; keys sort in log order. */
export function logEntryKey(index: number): string {
  return `${ENTRIES}${pad(index)}`;
}

/**
 * The log from its tail, inside the transaction that promotes appends. Its first write enters
 * the runs the directory lists already, as predating the log.
 */
export async function openLog(txn: DurableObjectStorage, signer: HeadSigner | undefined): Promise<HeadLogWriter> {
  const tail = await txn.get<LogHead>(TAIL);
  const log = new HeadLogWriter(tail, signer);
  if (tail) return log;
  const runs = [...(await txn.list<RunSummary>({ prefix: 'run:' })).values()];
  const entries = log.predating(runs);
  for (let i = 0; i < entries.length; i += 100) await txn.put(Object.fromEntries(entries.slice(i, i + 100).map((entry) => [logEntryKey(entry.index), entry])));
  return log;
}

/** Write the log's new head when it has new entries, and its signature when the transaction held a checkpoint. */
export async function closeLog(txn: DurableObjectStorage, log: HeadLogWriter): Promise<void> {
  if (log.entries.length === 0) return;
  const signed = log.seal();
  await txn.put<LogHead | SignedLogHead>({ [TAIL]: log.tail, ...(signed ? { [SIGNED]: signed } : {}) });
}

/** The whole log and its signed head. */
export async function readLog(storage: DurableObjectStorage): Promise<HeadLog> {
  const entries = [...(await storage.list<HeadLogEntry>({ prefix: ENTRIES })).values()];
  const signed = await storage.get<SignedLogHead>(SIGNED);
  return { entries, ...(signed ? { signed } : {}) };
}
