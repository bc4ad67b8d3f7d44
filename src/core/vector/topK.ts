/**
 * A bounded top-k selection: keeps the k best (score, id) pairs seen so far in a binary
 * min-heap, so a scan of n items costs O(n log k) and O(k) memory. Ties on score are broken
 * by id, ascending, so results never depend on insertion order.
 */
export class TopK {
  readonly k: number;
  readonly #scores: Float64Array;
  readonly #ids: string[];
  readonly #payload: number[];
  #size = 0;

  constructor(k: number) {
    if (!Number.isInteger(k) || k < 1) throw new RangeError('k must be a positive integer');
    this.k = k;
    this.#scores = new Float64Array(k);
    this.#ids = new Array<string>(k);
    this.#payload = new Array<number>(k);
  }

  get size(): number {
    return this.#size;
  }

  /** The score an item must beat (or tie with a smaller id) to enter; -Infinity until full. */
  get threshold(): number {
    return this.#size < this.k ? -Infinity : this.#scores[0]!;
  }

  /** Offer an item; `payload` is an opaque number (a row index) returned with it. */
  push(score: number, id: string, payload: number): void {
    if (this.#size < this.k) {
      let i = this.#size++;
      // Sift up.
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.#worse(score, id, this.#scores[parent]!, this.#ids[parent]!)) break;
        this.#scores[i] = this.#scores[parent]!;
        this.#ids[i] = this.#ids[parent]!;
        this.#payload[i] = this.#payload[parent]!;
        i = parent;
      }
      this.#scores[i] = score;
      this.#ids[i] = id;
      this.#payload[i] = payload;
      return;
    }
    if (!this.#worse(this.#scores[0]!, this.#ids[0]!, score, id)) return;
    // Replace the root and sift down.
    let i = 0;
    const n = this.#size;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.#worse(this.#scores[right]!, this.#ids[right]!, this.#scores[left]!, this.#ids[left]!)) child = right;
      if (!this.#worse(this.#scores[child]!, this.#ids[child]!, score, id)) break;
      this.#scores[i] = this.#scores[child]!;
      this.#ids[i] = this.#ids[child]!;
      this.#payload[i] = this.#payload[child]!;
      i = child;
    }
    this.#scores[i] = score;
    this.#ids[i] = id;
    this.#payload[i] = payload;
  }

  /** The kept items, best first. */
  sorted(): Array<{ score: number; id: string; payload: number }> {
    const items = [];
    for (let i = 0; i < this.#size; i++) items.push({ score: this.#scores[i]!, id: this.#ids[i]!, payload: this.#payload[i]! });
    return items.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  // Whether (scoreA, idA) ranks below (scoreB, idB).
  #worse(scoreA: number, idA: string, scoreB: number, idB: string): boolean {
    return scoreA < scoreB || (scoreA === scoreB && idA > idB);
  }
}
