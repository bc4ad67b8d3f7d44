/**
 * Filling a step's arguments from its clause, driven by the tool's JSON Schema: each parameter
 * takes the value its words, type and format point at, and records the span of the goal it
 * came from and why. Optional parameters stay out unless the request speaks to them; required
 * ones that cannot be found are reported missing (never guessed from the whole clause).
 */
import type { Language } from '../ranking/stem.ts';
import { isStopWord } from '../ranking/stem.ts';
import { tokenize, type Token } from '../ranking/tokens.ts';
import { readBoolean } from './booleans.ts';
import { clockTimes, dateMentions } from './dates.ts';
import { chooseOption } from './enums.ts';
import { expressionOf } from './expression.ts';
import { mentionLists, wordList } from './lists.ts';
import { assignNumbers } from './numberSlots.ts';
import { numericMentions } from './numbers.ts';
import { introducerIndices, phraseAfter, roleOf, textMentions, type Role } from './strings.ts';
import { overlaps, paramsOf, type Filled, type Mention, type Param } from './types.ts';

/** What slot filling reads. */
export interface FillContext {
  /** The clause this step serves. */
  clause: string;
  /** Offset of the clause in the goal (spans are reported in the goal's offsets). */
  offset: number;
  language: Language;
  /** Reference instant for relative dates (the orchestrator's clock); absent, relative dates are left out. */
  now?: number;
  /** The previous step's name, for "…the result" references. */
  previousStep?: string;
  /** Folded words of the clause the tool matched: they ask for the tool, they are not values. */
  toolWords: ReadonlySet<string>;
  /** The tool's description ("Subtract b from a" says which number is which). */
  description?: string;
}

/** The arguments found, where each came from, and the required parameters not found. */
export interface FillResult {
  input: Record<string, unknown>;
  sources: Record<string, { start: number; end: number; reason: string }>;
  missing: Param[];
}

type JsonSchema = Record<string, unknown>;

function dateKind(param: Param): 'date' | 'time' | 'datetime' | undefined {
  const format = param.schema['format'];
  if (format === 'date') return 'date';
  if (format === 'date-time') return 'datetime';
  if (format === 'time') return 'time';
  const pattern = param.schema['pattern'];
  if (typeof pattern === 'string' && pattern.includes(':') && /\\d|\[0-/.test(pattern) && !/\d{4}/.test(pattern)) return 'time';
  if (param.type !== 'string') return undefined;
  if (param.nameWords.some((w) => /^(date|day|birthday|deadline|due)$/.test(w))) return 'date';
  if (param.nameWords.some((w) => /^(time|hour)$/.test(w))) return 'time';
  if (param.nameWords.some((w) => /^(when|datetime|at)$/.test(w))) return 'datetime';
  return undefined;
}

const LATER = /^(end|return|out|until|to|checkout|departure_return|back)$/;

/** Fill `inputSchema`'s parameters from `context.clause`. */
export function fillArguments(inputSchema: JsonSchema, context: FillContext): FillResult {
  const { clause, offset, language } = context;
  const params = paramsOf(inputSchema);
  const tokens = tokenize(clause);
  const input: Record<string, unknown> = {};
  const sources: FillResult['sources'] = {};
  const taken: Array<{ start: number; end: number }> = [];
  const set = (param: Param, filled: Filled) => {
    input[param.name] = filled.value;
    sources[param.name] = { start: filled.start, end: filled.end, reason: filled.reason };
    if (filled.end > filled.start) taken.push({ start: filled.start - offset, end: filled.end - offset });
  };
  const from = (mention: { start: number; end: number }, value: unknown, reason: string): Filled => ({
    value,
    start: offset + mention.start,
    end: offset + mention.end,
    reason,
  });

  const texts = textMentions(clause);
  const datesWanted = params.some((p) => dateKind(p) !== undefined);
  const clocks = clockTimes(clause);
  const dates = datesWanted ? dateMentions(clause, language, context.now).filter((m) => !overlaps(m.start, m.end, texts)) : [];
  for (const clock of clocks) if (!dates.some((d) => d.kind === 'time' && overlaps(clock.start, clock.end, [d]))) dates.push(clock);
  const numbers = numericMentions(clause, language, [...texts, ...dates.filter((d) => /[^\d\s]/.test(clause.slice(d.start, d.end))), ...clocks]);

  // 1. Typed text: URLs, e-mail addresses, paths, expressions.
  for (const param of params) {
    if (param.type !== 'string') continue;
    const format = param.schema['format'];
    const name = param.name.toLowerCase();
    const want =
      format === 'uri' || format === 'url' || /ur[li]$|^url|link|href|website/.test(name)
        ? 'url'
        : format === 'email' || /e?mail/.test(name)
          ? 'email'
          : /path|^file$|filename|folder|directory/.test(name)
            ? 'path'
            : undefined;
    if (want) {
      const mention = texts.find((m) => m.kind === want && !overlaps(m.start, m.end, taken));
      if (mention) set(param, from(mention, mention.value, `the ${want} written in the request`));
      continue;
    }
    if (/expr|formula|equation/.test(name)) {
      const expression = expressionOf(clause);
      if (expression) set(param, from(expression, expression.value, 'the arithmetic written in the request'));
    }
  }

  // 2. Dates and times, in the order written; "return", "end", "check out" take the later one.
  const dated = params.filter((p) => input[p.name] === undefined && dateKind(p));
  const ordered = [...dated.filter((p) => !p.nameWords.some((w) => LATER.test(w))), ...dated.filter((p) => p.nameWords.some((w) => LATER.test(w)))];
  for (const param of ordered) {
    const kind = dateKind(param)!;
    const mention = dates.find(
      (m) =>
        m.kind === kind &&
        !overlaps(
          m.start,
          m.end,
          taken.filter((t) => !dates.some((d) => d.kind !== kind && d.start === t.start)),
        ),
    );
    if (!mention) continue;
    let value = mention.value as string;
    if (param.schema['format'] === 'time') value = `${value}:00`;
    set(param, from(mention, value, `${kind === 'datetime' ? 'date and time' : kind} "${clause.slice(mention.start, mention.end)}"`));
  }

  // 3. Enums and booleans the request speaks to.
  for (const param of params) {
    if (input[param.name] !== undefined) continue;
    if (param.type === 'enum') {
      const chosen = chooseOption(
        param.options ?? [],
        tokens,
        offset,
        taken.map((t) => ({ start: t.start, end: t.end })),
      );
      if (chosen) set(param, chosen);
    } else if (param.type === 'boolean') {
      const value = readBoolean(param, tokens, offset);
      if (value) set(param, value);
    }
  }

  // 4. Numbers by their cues; arrays from lists.
  const free = numbers.filter((m) => !overlaps(m.start, m.end, taken));
  for (const [param, filled] of assignNumbers(
    params.filter((p) => input[p.name] === undefined),
    free,
    tokens,
    clause,
    offset,
    context.previousStep,
    context.description ?? '',
  ))
    set(param, filled);
  for (const param of params) {
    if (param.type !== 'array' || input[param.name] !== undefined) continue;
    const numeric = param.itemType === 'number' || param.itemType === 'integer';
    const pool: Mention[] = numeric
      ? numbers.filter((m) => !overlaps(m.start, m.end, taken))
      : texts.filter((m) => m.kind === 'quoted' && !overlaps(m.start, m.end, taken));
    const lists = mentionLists(clause, pool).sort((a, b) => b.items.length - a.items.length);
    const list = lists[0] ?? (numeric ? undefined : wordList(clause, tokens, taken));
    if (list) set(param, from(list, list.items, `a list of ${list.items.length}`));
  }

  // 5. Text by the words that introduce it; then quoted text; then what is left, for one required text.
  fillStrings(params, input, clause, tokens, texts, taken, context, set, from);

  const missing = params.filter((p) => p.required && input[p.name] === undefined);
  return { input, sources, missing };
}

const STRONG: Readonly<Partial<Record<Role, RegExp>>> = {
  text: /^(saying|says|say|reading|disant|diciendo|dizendo|dicendo|sagt)$/,
  title: /./,
  creator: /^(by|von|por|di)$/,
  destination: /^(to|into|nach|towards)$/,
  origin: /^(from|desde|von|depuis)$/,
  language: /^(into|auf)$/,
  sourceLanguage: /^(from|aus)$/,
};

function fillStrings(
  params: readonly Param[],
  input: Record<string, unknown>,
  clause: string,
  tokens: readonly Token[],
  texts: readonly Mention[],
  taken: Array<{ start: number; end: number }>,
  context: FillContext,
  set: (param: Param, filled: Filled) => void,
  from: (mention: { start: number; end: number }, value: unknown, reason: string) => Filled,
): void {
  const open = () => params.filter((p) => p.type === 'string' && input[p.name] === undefined && !dateKind(p));
  const tokenTaken = (i: number) => taken.some((t) => tokens[i]!.start < t.end && tokens[i]!.end > t.start);
  const tryIntroducers = (param: Param, strongOnly: boolean): boolean => {
    const role = roleOf(param);
    for (const at of introducerIndices(tokens, param, role)) {
      if (tokenTaken(at)) continue;
      const strong = STRONG[role]?.test(tokens[at]!.word) ?? false;
      const ownName = param.nameWords.includes(tokens[at]!.word);
      if (strongOnly && !strong) continue;
      if (!strongOnly && !ownName && context.toolWords.has(tokens[at]!.word)) continue;
      const quote = texts.find(
        (m) => m.kind === 'quoted' && m.start >= tokens[at]!.end && !overlaps(m.start, m.end, taken) && /^[\s:]*$/.test(clause.slice(tokens[at]!.end, m.start)),
      );
      if (quote) {
        set(param, from(quote, quote.value, `quoted after "${tokens[at]!.raw}"`));
        return true;
      }
      const phrase = phraseAfter(clause, tokens, at, role, taken);
      if (!phrase) continue;
      const words = tokens.slice(phrase[0], phrase[1] + 1);
      if (words.every((t) => isStopWord(t.word, context.language) || context.toolWords.has(t.word))) continue;
      if (role !== 'text' && words.some((t) => context.toolWords.has(t.word))) continue;
      const span = { start: words[0]!.start, end: words.at(-1)!.end };
      set(param, from(span, clause.slice(span.start, span.end), `the words after "${tokens[at]!.raw}"`));
      return true;
    }
    return false;
  };
  for (const param of open()) tryIntroducers(param, true);
  for (const param of open()) tryIntroducers(param, false);
  // Quoted text left over goes to the first open text parameter, required ones first.
  for (const quote of texts.filter((m) => m.kind === 'quoted' && !overlaps(m.start, m.end, taken))) {
    const target = [...open().filter((p) => p.required), ...open()][0];
    if (!target) break;
    set(target, from(quote, quote.value, 'quoted in the request'));
  }
  // A colon introduces the value of the one required text parameter left.
  const left = open().filter((p) => p.required);
  if (left.length === 0) return;
  const target = left[0]!;
  const colon = clause.indexOf(':');
  if (colon >= 0 && clause.slice(colon + 1).trim() && !/\d:\d/.test(clause.slice(colon - 1, colon + 2))) {
    const start = colon + 1 + (clause.slice(colon + 1).length - clause.slice(colon + 1).trimStart().length);
    set(target, from({ start, end: clause.trimEnd().length }, clause.slice(start).trim(), 'the text after the colon'));
    return;
  }
  // What is left once the words asking for the tool are set aside, unless it only points elsewhere ("the README").
  const rest: number[] = [];
  tokens.forEach((token, i) => {
    if (!tokenTaken(i) && !context.toolWords.has(token.word)) rest.push(i);
  });
  const firstContent = rest.findIndex((i) => !isStopWord(tokens[i]!.word, context.language));
  if (firstContent < 0) return;
  const begin = rest[firstContent]!;
  const before = begin > 0 ? tokens[begin - 1]!.word : '';
  if (/^(the|this|that|my|our|these|those|ce|cette|le|la|el|der|die|das)$/.test(before) && !context.toolWords.has(before)) return;
  let end = begin;
  for (let i = begin + 1; i < tokens.length && !tokenTaken(i); i++) {
    if (/[,;!?]/.test(clause.slice(tokens[i - 1]!.end, tokens[i]!.start)) && roleOf(target) !== 'text') break;
    end = i;
  }
  while (end > begin && isStopWord(tokens[end]!.word, context.language)) end--;
  const span = { start: tokens[begin]!.start, end: tokens[end]!.end };
  set(target, from(span, clause.slice(span.start, span.end), 'the rest of the request, past the words that chose the tool'));
}
