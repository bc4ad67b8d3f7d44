/**
 * Array parameters from the lists of a clause: numbers ("3, 7 and 12"), e-mail addresses (each
 * to the list whose parameter's name word comes before it: "cc lisa@…"), quoted items, words.
 */
import type { Token } from '../ranking/tokens.ts';
import { mentionLists, wordList } from './lists.ts';
import { roleOf } from './strings.ts';
import { overlaps, type Filled, type Mention, type Param } from './types.ts';

/** Arrays from lists: numbers, e-mail addresses (each to the list its parameter's name word precedes), quoted items, words. */
export function fillArrays(
  params: readonly Param[],
  input: Record<string, unknown>,
  clause: string,
  tokens: readonly Token[],
  texts: readonly Mention[],
  numbers: readonly Mention[],
  taken: Array<{ start: number; end: number }>,
  set: (param: Param, filled: Filled) => void,
  from: (mention: { start: number; end: number }, value: unknown, reason: string) => Filled,
): void {
  const arrays = params.filter((p) => p.type === 'array' && input[p.name] === undefined);
  const emails = texts.filter((m) => m.kind === 'email' && !overlaps(m.start, m.end, taken));
  const emailParams = arrays.filter(
    (p) =>
      (p.itemType !== 'number' && p.itemType !== 'integer' && (p.schema['items'] as Record<string, unknown> | undefined)?.['format'] === 'email') ||
      roleOf(p) === 'person',
  );
  if (emails.length && emailParams.length) {
    // Each address goes to the parameter whose name word comes last before it ("cc lisa@…"), else to the first.
    const owner = (mention: Mention) => {
      const before = tokens.filter((t) => t.end <= mention.start).map((t) => t.word);
      let chosen = emailParams[0]!;
      let at = -1;
      for (const param of emailParams) {
        const i = before.findLastIndex((w) => param.nameWords.includes(w));
        if (i > at) [chosen, at] = [param, i];
      }
      return chosen;
    };
    const groups = new Map<Param, Mention[]>();
    for (const mention of emails) groups.set(owner(mention), [...(groups.get(owner(mention)) ?? []), mention]);
    for (const [param, list] of groups) {
      set(
        param,
        from(
          { start: list[0]!.start, end: list.at(-1)!.end },
          list.map((m) => m.value),
          `${list.length} e-mail address${list.length === 1 ? '' : 'es'}`,
        ),
      );
    }
  }
  for (const param of params) {
    if (param.type !== 'array' || input[param.name] !== undefined) continue;
    const numeric = param.itemType === 'number' || param.itemType === 'integer';
    const pool: Mention[] = numeric
      ? numbers.filter((m) => !overlaps(m.start, m.end, taken) && !m.implicit)
      : texts.filter((m) => (m.kind === 'quoted' || (m.kind === 'path' && roleOf(param) !== 'person')) && !overlaps(m.start, m.end, taken));
    const lists = mentionLists(clause, pool).sort((a, b) => b.items.length - a.items.length);
    const list = lists[0] ?? (numeric ? undefined : wordList(clause, tokens, taken));
    if (list) set(param, from(list, list.items, `a list of ${list.items.length}`));
  }
}
