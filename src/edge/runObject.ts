import { DurableObject } from 'cloudflare:workers';
import { ConflictError, type AppendBatch, type JournalEvent, type JournalHead } from '../core/index.ts';
import { checkBatch } from '../core/stores.ts';
import type { DurableObjectBindings } from './durableObjectStore.ts';
import { capture, type Outcome } from './errorRecord.ts';

/** A sequence number as a storage key part: fixed width, so keys sort in sequence order. */
export const pad = (seq: number) => String(seq).padStart(12, '0');
/** A storage `put` takes at most 128 keys; larger writes are split inside one transaction. */
const PUT_CHUNK = 100;

/** What a run object says about a staged batch: written, lost to another writer, fenced off for good, or not (yet) written. */
export type Landing = 'committed' | 'superseded' | 'fenced' | 'absent';

/**
 * One run: its journal lives in this object's storage, keyed by sequence number, and it is
 * the source of truth for everything listed about the run. A Durable Object handles one call
 * at a time and its storage operations are atomic within it, so checking the head and writing
 * the batch can never interleave with another writer.
 */
export class RunObject extends DurableObject<DurableObjectBindings> {
  /** Append `batch` atomically, unless `attempt` was fenced off by {@link settle}. */
  append(batch: AppendBatch, attempt: string): Promise<Outcome<void>> {
    return capture(async () => {
      if (await this.ctx.storage.get<true>(`fence:${attempt}`)) {
        throw new ConflictError(`run ${batch.runId}: this write was given up on after its writer went silent`, {
          code: 'head_mismatch',
          details: { runId: batch.runId },
        });
      }
      checkBatch(batch, await this.ctx.storage.get<JournalHead>('head'));
      const last = batch.events.at(-1)!;
      const head = { seq: last.seq, hash: last.hash };
      await this.ctx.storage.transaction(async (txn) => {
        for (let i = 0; i < batch.events.length; i += PUT_CHUNK) {
          const entries: Record<string, JournalEvent> = {};
          for (const event of batch.events.slice(i, i + PUT_CHUNK)) entries[`e:${pad(event.seq)}`] = event;
          await txn.put(entries);
        }
        await txn.put('head', head);
      });
    });
  }

  async readJournal(fromSeq: number): Promise<JournalEvent[]> {
    return [...(await this.ctx.storage.list<JournalEvent>({ prefix: 'e:', start: `e:${pad(fromSeq)}` })).values()];
  }

  /**
   * Where each staged write stands. One that has not landed and whose `fence` is set is fenced
   * off here and now: since this object takes one call at a time, that attempt can never land
   * afterwards (a new attempt with the same events still can).
   */
  async settle(writes: ReadonlyArray<{ attempt: string; seq: number; hash: string; fence: boolean }>): Promise<Landing[]> {
    const landings: Landing[] = [];
    for (const { attempt, seq, hash, fence } of writes) {
      const event = await this.ctx.storage.get<JournalEvent>(`e:${pad(seq)}`);
      if (event) landings.push(event.hash === hash ? 'committed' : 'superseded');
      else if (fence) {
        await this.ctx.storage.put(`fence:${attempt}`, true);
        landings.push('fenced');
      } else landings.push('absent');
    }
    return landings;
  }
}
