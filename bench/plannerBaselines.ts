// The plain baseline the planner is measured against: Okapi BM25 over each tool's name and
// description, no stemming, no synonyms, no slot filling.

/** What the baseline reads of a tool. */
export interface BaselineTool {
  name: string;
  description: string;
}

/** Lowercase runs of letters and digits; `_`, `.`, `-` and every other character separate words. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Okapi BM25 (k1 = 1.2, b = 0.75) over "name description" of each tool, with the
 * non-negative IDF ln(1 + (N − n + 0.5) / (n + 0.5)). It picks the best-scoring tool (ties go
 * to the name that sorts first) and refuses only when every score is 0, that is when the
 * request shares no word with any tool. It fills no arguments.
 */
export class Bm25Baseline {
  readonly #names: string[];
  readonly #termFrequencies: Array<Map<string, number>>;
  readonly #lengths: number[];
  readonly #idf = new Map<string, number>();
  readonly #averageLength: number;
  readonly #k1: number;
  readonly #b: number;

  constructor(tools: readonly BaselineTool[], options: { k1?: number; b?: number } = {}) {
    this.#k1 = options.k1 ?? 1.2;
    this.#b = options.b ?? 0.75;
    const sorted = [...tools].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    this.#names = sorted.map((tool) => tool.name);
    this.#termFrequencies = [];
    this.#lengths = [];
    const documentFrequency = new Map<string, number>();
    for (const tool of sorted) {
      const tokens = wordTokens(`${tool.name} ${tool.description}`);
      const frequencies = new Map<string, number>();
      for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
      for (const token of frequencies.keys()) documentFrequency.set(token, (documentFrequency.get(token) ?? 0) + 1);
      this.#termFrequencies.push(frequencies);
      this.#lengths.push(tokens.length);
    }
    const count = sorted.length;
    for (const [token, n] of documentFrequency) this.#idf.set(token, Math.log(1 + (count - n + 0.5) / (n + 0.5)));
    this.#averageLength = this.#lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, count);
  }

  /** The BM25 score of every tool for `query`, in the order of the tools' names. */
  scores(query: string): Array<{ name: string; score: number }> {
    const terms = wordTokens(query);
    return this.#names.map((name, index) => {
      const frequencies = this.#termFrequencies[index]!;
      const norm = this.#k1 * (1 - this.#b + (this.#b * this.#lengths[index]!) / (this.#averageLength || 1));
      let score = 0;
      for (const term of terms) {
        const tf = frequencies.get(term);
        if (tf) score += this.#idf.get(term)! * ((tf * (this.#k1 + 1)) / (tf + norm));
      }
      return { name, score };
    });
  }

  /** The best tool for `query`, or `null` when no tool shares a word with it. */
  choose(query: string): string | null {
    let best: { name: string; score: number } | undefined;
    for (const entry of this.scores(query)) if (entry.score > (best?.score ?? 0)) best = entry;
    return best ? best.name : null;
  }
}
