/**
 * Lists into arrays: "'a', 'b' and 'c'", "milk, eggs and bread", "12, 18 and 24", in the
 * planner's languages ("et", "y", "und", "e").
 */
import type { Token } from '../ranking/tokens.ts';
import type { Mention } from './types.ts';

const JOINERS = /^\s*(?:,|;|,?\s*(?:and|or|&|et|ou|y|o|und|oder|e)\s)\s*$/i;

/** A list found in the clause: its items (text or numbers) and its span. */
export interface ListMention {
  items: Array<string | number>;
  start: number;
  end: number;
}

/** Runs of mentions (numbers or quoted strings) joined by commas and "and": each run of two or more is a list. */
export function mentionLists(text: string, mentions: readonly Mention[]): ListMention[] {
  const lists: ListMention[] = [];
  let run: Mention[] = [];
  const flush = () => {
    if (run.length >= 2) lists.push({ items: run.map((m) => m.value), start: run[0]!.start, end: run.at(-1)!.end });
    run = [];
  };
  for (const mention of mentions) {
    const previous = run.at(-1);
    if (previous && previous.kind === mention.kind && JOINERS.test(`${text.slice(previous.end, mention.start)} `)) run.push(mention);
    else {
      flush();
      run = [mention];
    }
  }
  flush();
  return lists;
}

const STOP_INSIDE = /^(to|from|in|at|on|for|by|with|about|into|please|then|the|my|a|an)$/;

/**
 * A list of words: "milk, eggs and bread". The first item starts after the last function word
 * before the first comma; the last item ends at the next function word or punctuation. Needs at
 * least one comma or "and" between items of at most four words each.
 */
export function wordList(text: string, tokens: readonly Token[], taken: ReadonlyArray<{ start: number; end: number }>): ListMention | undefined {
  const free = (i: number) => !taken.some((t) => tokens[i]!.start < t.end && tokens[i]!.end > t.start);
  for (let i = 0; i < tokens.length - 1; i++) {
    const gap = text.slice(tokens[i]!.end, tokens[i + 1]!.start);
    if (!gap.includes(',')) continue;
    // Items: walk back from the first comma to where the first item starts.
    let start = i;
    while (
      start > 0 &&
      i - start < 3 &&
      free(start - 1) &&
      !STOP_INSIDE.test(tokens[start - 1]!.word) &&
      !/[,:;]/.test(text.slice(tokens[start - 1]!.end, tokens[start]!.start))
    )
      start--;
    if (STOP_INSIDE.test(tokens[start]!.word) || !free(start)) continue;
    const items: Array<[number, number]> = [[start, i]];
    let j = i + 1;
    let ended = false;
    while (j < tokens.length && !ended) {
      if (/^(and|or|et|ou|y|o|und|oder|e)$/.test(tokens[j]!.word)) j++;
      const first = j;
      if (first >= tokens.length || !free(first)) break;
      let last = first;
      while (last + 1 < tokens.length && last - first < 3 && free(last + 1)) {
        const between = text.slice(tokens[last]!.end, tokens[last + 1]!.start);
        if (/[,;:.!?]/.test(between) || STOP_INSIDE.test(tokens[last + 1]!.word) || /^(and|or|et|y|und|e)$/.test(tokens[last + 1]!.word)) break;
        last++;
      }
      items.push([first, last]);
      const after = last + 1 < tokens.length ? text.slice(tokens[last]!.end, tokens[last + 1]!.start) : '';
      const joined = after.includes(',') || (last + 1 < tokens.length && /^(and|or|et|ou|y|o|und|oder|e)$/.test(tokens[last + 1]!.word));
      if (!joined) ended = true;
      j = last + 1;
      if (after.includes(',')) continue;
    }
    if (items.length < 2) continue;
    // The first item is as long as the longest of the others: the words before it belong to the request.
    const longest = Math.max(...items.slice(1).map(([a, b]) => b - a));
    if (items[0]![1] - items[0]![0] > longest) items[0] = [items[0]![1] - longest, items[0]![1]];
    return {
      items: items.map(([a, b]) => text.slice(tokens[a]!.start, tokens[b]!.end)),
      start: tokens[items[0]![0]]!.start,
      end: tokens[items.at(-1)![1]]!.end,
    };
  }
  return undefined;
}
