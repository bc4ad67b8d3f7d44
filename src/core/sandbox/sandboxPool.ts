import type { JsonValue } from '../schema/common.ts';
import type { SandboxCallOptions, SandboxedTool } from './sandbox.ts';

/** One worker of a pooled tool and the calls it has under way or queued. */
interface Slot {
  tool: SandboxedTool;
  calls: number;
}

/**
 * A loaded tool served by up to `size` warm workers of its own, so calls made at once (the
 * steps of a parallel wave) run at once, each in its own isolated worker, instead of queueing
 * behind one. A call goes to an idle worker, else to a new one while the pool has room, else
 * to the worker with the fewest calls (the earliest on a tie). Every worker runs the same
 * source under the same limits, so which one answers never changes a result.
 */
export class PooledTool implements SandboxedTool {
  readonly id: string;
  readonly #size: number;
  readonly #spawn: () => SandboxedTool;
  readonly #slots: Slot[];

  /** @param first the tool's first worker, already started; `spawn` makes another (started on its first call) */
  constructor(first: SandboxedTool, size: number, spawn: () => SandboxedTool) {
    this.id = first.id;
    this.#size = size;
    this.#spawn = spawn;
    this.#slots = [{ tool: first, calls: 0 }];
  }

  /** Workers started so far, across the pool. */
  get starts(): number {
    return this.#slots.reduce((sum, slot) => sum + slot.tool.starts, 0);
  }

  /** Workers in the pool (started or about to be). */
  get workers(): number {
    return this.#slots.length;
  }

  async call(input: unknown, options?: SandboxCallOptions): Promise<JsonValue> {
    const slot = this.#pick();
    slot.calls++;
    try {
      return await slot.tool.call(input, options);
    } finally {
      slot.calls--;
    }
  }

  #pick(): Slot {
    let least = this.#slots[0]!;
    for (const slot of this.#slots) {
      if (slot.calls === 0) return slot;
      if (slot.calls < least.calls) least = slot;
    }
    if (this.#slots.length < this.#size) {
      const slot = { tool: this.#spawn(), calls: 0 };
      this.#slots.push(slot);
      return slot;
    }
    return least;
  }

  async close(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => slot.tool.close()));
  }
}
