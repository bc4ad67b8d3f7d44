/**
 * Clauses of a goal: the parts that each become (at most) one step. Split at ";", new lines
 * and sequencing words ("then", "and then", "after that", "finally", and their French, Spanish,
 * German, Portuguese and Italian forms); quoted text is never split.
 */

const CLAUSE_BREAK =
  /\s*(?:;|\n+|,?\s+and\s+then\s+|,?\s+then\s+|,?\s+after\s+that\s*,?\s+|,?\s+afterwards\s*,?\s+|,?\s+finally\s*,?\s+|,?\s+(?:et\s+)?ensuite\s+|,?\s+(?:y\s+)?luego\s+|,?\s+(?:y\s+)?despu[eé]s\s+|,?\s+(?:und\s+)?dann\s+|,?\s+(?:e\s+)?depois\s+|,?\s+(?:e\s+)?poi\s+)\s*/gi;

/** One clause and where it starts in the goal. */
export interface ClauseSpan {
  text: string;
  start: number;
}

/** Longest goal read for clauses; past it the text is one more clause, not split further. */
const MAX_SPLIT = 16_384;

/** The clauses of `goal` with their offsets; clauses without a letter or digit are dropped. */
export function clausesOf(goal: string): ClauseSpan[] {
  const head = goal.slice(0, MAX_SPLIT);
  const masked = head.replace(/"(?:[^"\\]|\\.)*"|(?<![\p{L}\p{N}])'(?:[^'\\]|\\.)*'(?![\p{L}\p{N}])|“[^”]*”/gu, (m) => '\u0000'.repeat(m.length));
  const spans: ClauseSpan[] = [];
  let start = 0;
  for (const match of masked.matchAll(CLAUSE_BREAK)) {
    spans.push({ text: goal.slice(start, match.index), start });
    start = match.index + match[0].length;
  }
  spans.push({ text: goal.slice(start, goal.length > MAX_SPLIT ? MAX_SPLIT : goal.length), start });
  return spans
    .map(({ text, start: at }) => {
      const lead = text.length - text.trimStart().length;
      return { text: text.trim(), start: at + lead };
    })
    .filter((c) => /[\p{L}\p{N}]/u.test(c.text));
}

/** Split a goal into the clauses that each become (at most) one step; quoted text stays whole. */
export function splitClauses(goal: string): string[] {
  return clausesOf(goal).map((c) => c.text);
}
