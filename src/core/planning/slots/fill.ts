/**
 * Filling a step's arguments from its clause, driven by the tool's JSON Schema: each parameter
 * takes the value its words, type and format point at, and records the span of the goal it
 * came from and why. Optional parameters stay out unless the request speaks to them; required
 * ones that cannot be found are reported missing (never guessed from the whole clause).
 */
import type { Language } from '../ranking/stem.ts';
import { isStopWord } from '../ranking/stem.ts';
import type { Token } from '../ranking/tokens.ts';
import { readBoolean } from './booleans.ts';
import { chooseOption } from './enums.ts';
import { expressionOf } from './expression.ts';
import { fillArrays } from './arrays.ts';
import { assignNumbers } from './numberSlots.ts';
import { readClause } from './clauseReading.ts';
import { isRequestVerb } from './verbs.ts';
import { modifierBefore } from './modifiers.ts';
import { enumList, exclusions } from './sets.ts';
import { currencyCode } from './numbers.ts';
import { codeIn, identifierIn, phoneIn, introducerIndices, isBoundary, phraseAfter, roleOf, type Role } from './strings.ts';
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
  const datesWanted = params.some((p) => dateKind(p) !== undefined);
  const { tokens, texts, clocks, dates: found, numbers } = readClause(clause, language, context.now, datesWanted);
  const dates = [...found];
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
    // A phone number, for a parameter that holds one ("recipient: phone number or contact name").
    if (/phone|mobile|^tel|cell/.test(name) || (roleOf(param) === 'person' && /\bphone\b/i.test(param.description))) {
      const phone = phoneIn(clause, [...taken, ...texts, ...dates, ...clocks]);
      if (phone) {
        set(param, from(phone, phone.value, 'the phone number written in the request'));
        continue;
      }
    }
    // A channel written as #name.
    if (/channel/.test(name)) {
      const channel = /(?<![\p{L}\p{N}#])#[\p{L}\p{N}][\p{L}\p{N}_-]*/u.exec(clause);
      if (channel && !overlaps(channel.index, channel.index + channel[0].length, taken)) {
        set(param, from({ start: channel.index, end: channel.index + channel[0].length }, channel[0], 'the channel written as #name'));
        continue;
      }
    }
    if (roleOf(param) === 'identifier') {
      const code = codeIn(clause, [...taken, ...texts, ...dates, ...clocks]);
      if (code) set(param, from(code, code.value, 'a code written in the request'));
      continue;
    }
    if (/expr|formula|equation/.test(name)) {
      const expression = expressionOf(clause);
      if (expression) set(param, from(expression, expression.value, 'the arithmetic written in the request'));
    }
  }

  // 2. Dates and times, in the order written; "return", "end", "check out" take a later one than their pair.
  const dated = params.filter((p) => input[p.name] === undefined && dateKind(p));
  const ordered = [...dated.filter((p) => !p.nameWords.some((w) => LATER.test(w))), ...dated.filter((p) => p.nameWords.some((w) => LATER.test(w)))];
  const used: Record<string, Set<number>> = { date: new Set(), time: new Set(), datetime: new Set() };
  const pick = (kind: string) => dates.find((m) => m.kind === kind && !used[kind]!.has(m.start));
  for (const param of ordered) {
    const kind = dateKind(param)!;
    let mention = pick(kind);
    let value = mention?.value as string | undefined;
    if (!mention && kind === 'datetime') {
      // A day and a clock time written apart ("tomorrow … at 10h") make one date-time.
      const day = pick('date');
      const time = pick('time');
      if (day && time) {
        mention = { kind: 'datetime', value: '', start: Math.min(day.start, time.start), end: Math.max(day.end, time.end) };
        value = `${String(day.value)}T${String(time.value)}:00`;
        used['date']!.add(day.start);
        used['time']!.add(time.start);
      }
    }
    if (!mention || value === undefined) continue;
    used[kind]!.add(mention.start);
    if (kind === 'datetime') {
      used['date']!.add(mention.start);
      used['time']!.add(mention.start);
    }
    if (param.schema['format'] === 'time') value = `${value}:00`;
    const shown = clause.slice(mention.start, mention.end);
    set(param, from(mention, value, `${kind === 'datetime' ? 'date and time' : kind} "${shown}"`));
  }

  // 3. Enums and booleans the request speaks to; a from/to pair of enums takes its values in the order written.
  const source = params.find((p) => p.type === 'enum' && p.nameWords.some((w) => /^(from|source|src|base)$/.test(w)));
  const target = params.find((p) => p.type === 'enum' && p !== source && p.nameWords.some((w) => /^(to|target|dest|destination)$/.test(w)));
  if (source && target && input[source.name] === undefined && input[target.name] === undefined) {
    const spans = () => taken.map((t) => ({ start: t.start, end: t.end }));
    const first = chooseOption(source.options ?? [], tokens, offset, spans());
    const second = first
      ? chooseOption(target.options ?? [], tokens, offset, [...spans(), { start: first.start - offset, end: first.end - offset }])
      : undefined;
    if (first && second) {
      const [early, late] = first.start < second.start ? [first, second] : [second, first];
      const before = tokens.filter((t) => t.end + offset <= early.start).at(-1)?.word ?? '';
      const swap = /^(to|into|in|en|a|nach|para|in)$/.test(before);
      set(source, swap ? late : early);
      set(target, swap ? early : late);
    }
  }
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
  // What to leave out ("without onions"), and lists of options ("on Saturday and Sunday").
  for (const param of params.filter((p) => input[p.name] === undefined && (p.type === 'array' || p.type === 'string'))) {
    const filled = exclusions(param, clause, tokens, language, offset, taken) ?? (param.type === 'array' ? enumList(param, tokens, offset, taken) : undefined);
    if (filled) set(param, filled);
  }
  fillArrays(params, input, clause, tokens, texts, numbers, taken, set, from);

  // 5. Text by the words that introduce it; then quoted text; then what is left, for one required text.
  const blockers = [...dates, ...numbers.filter((m) => !m.implicit), ...texts];
  fillStrings(params, input, clause, tokens, texts, taken, blockers, numbers, context, set, from);

  const missing = params.filter((p) => p.required && input[p.name] === undefined);
  return { input, sources, missing };
}

/** Words that introduce a name in the languages read ("a folder called …", "una carpeta llamada …"). */
const NAME_INTRODUCERS = /^(called|named|titled|entitled|appelee|appele|llamada|llamado|chamada|chamado|chiamata|chiamato|namens|mentioning|containing)$/;

/** Words after which free text begins, and words passed over before it. */
const TEXT_CONNECTORS = /^(to|that|saying|about|de|d|di|an|que|dass|che|per|pour|para)$/;
const TEXT_SKIP =
  /^(a|an|the|me|us|him|her|them|it|my|our|your|please|on|at|in|for|of|by|with|and|moi|mi|mich|mir|nous|le|la|les|el|los|las|un|una|une|um|uma|o|os|der|die|das|den|dem|ein|eine|il|lo|gli|alle|am|um|au|do|da|ao|im|à|às|alle)$/;

const STRONG: Readonly<Partial<Record<Role, RegExp>>> = {
  text: /^(saying|says|say|reading|disant|diciendo|dizendo|dicendo|sagt)$/,
  // Any word that introduces a title, except the prepositions that introduce much else ("for 2 guests").
  title: /^(?!(?:for|para|pour|per|fur)$)/,
  creator: /^(by|von|por|di|starring|featuring)$/,
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
  blockers: readonly Mention[],
  numbers: readonly Mention[],
  context: FillContext,
  set: (param: Param, filled: Filled) => void,
  from: (mention: { start: number; end: number }, value: unknown, reason: string) => Filled,
): void {
  const open = () =>
    params.filter((p) => (p.type === 'string' || (p.type === 'array' && p.itemType === 'string')) && input[p.name] === undefined && !dateKind(p));
  // A list parameter takes a phrase as its items ("with Ana and Ben").
  const valueFor = (param: Param, text: string): unknown =>
    param.type === 'array' ? text.split(/\s*(?:,|\band\b|&|\bet\b|\by\b|\bund\b)\s*/).filter(Boolean) : text;
  const blocked = () => [...taken, ...blockers];
  const tokenTaken = (i: number) => blocked().some((t) => tokens[i]!.start < t.end && tokens[i]!.end > t.start);
  // Codes and currencies have a shape of their own.
  for (const param of open()) {
    const role = roleOf(param);
    if (role === 'identifier') {
      const id = identifierIn(clause, [...taken, ...blockers.filter((b) => b.kind !== 'number')]);
      if (id) set(param, from(id, id.value, 'a code written in the request'));
    } else if (role === 'currency') {
      const target = param.nameWords.some((w) => /^(to|target|into)$/.test(w));
      const money = numbers.find((m) => m.kind === 'money');
      if (!target && money?.unit) {
        set(param, from(money, money.unit, `the currency of "${clause.slice(money.start, money.end)}"`));
        continue;
      }
      const words = tokens.filter((t, i) => currencyCode(clause.slice(t.start, t.end)) !== undefined && !tokenTaken(i));
      const after = words.find((t) => /^(to|into|in|en|a|nach|para)$/.test(tokens[tokens.indexOf(t) - 1]?.word ?? ''));
      const chosen = target ? (after ?? words.at(-1)) : words.find((t) => t !== after);
      if (chosen) set(param, from(chosen, currencyCode(clause.slice(chosen.start, chosen.end))!, `currency "${clause.slice(chosen.start, chosen.end)}"`));
    }
  }
  const tryIntroducers = (param: Param, strongOnly: boolean): boolean => {
    const role = roleOf(param);
    for (const at of introducerIndices(tokens, param, role, context.language)) {
      if (tokenTaken(at)) continue;
      const strong = STRONG[role]?.test(tokens[at]!.word) ?? false;
      const ownName = param.nameWords.includes(tokens[at]!.word);
      if (strongOnly && !strong) continue;
      if (!strongOnly && !ownName && context.toolWords.has(tokens[at]!.word)) continue;
      const quote = texts.find(
        (m) => m.kind === 'quoted' && m.start >= tokens[at]!.end && !overlaps(m.start, m.end, taken) && /^[\s:]*$/.test(clause.slice(tokens[at]!.end, m.start)),
      );
      if (quote) {
        set(param, from(quote, valueFor(param, String(quote.value)), `quoted after "${tokens[at]!.raw}"`));
        return true;
      }
      // Free text runs on over numbers and dates no other parameter took ("that I'm running 10 minutes late").
      const phrase = phraseAfter(clause, tokens, at, role, role === 'text' ? [...taken, ...texts] : blocked(), context.language);
      if (!phrase) continue;
      const words = tokens.slice(phrase[0], phrase[1] + 1);
      // A code is written with capitals or digits ("the code of the gym" gives none).
      if (role === 'identifier' && !/^[\p{Lu}\p{N}#]/u.test(clause.slice(words[0]!.start))) continue;
      // A value may end in the parameter's own noun ("in the living room"), and a capitalised name may hold the words that chose the tool ("the Premier League").
      const body = words.length > 1 && param.nameWords.includes(words.at(-1)!.word) ? words.slice(0, -1) : words;
      const named = body.every((t) => /^[\p{Lu}\p{N}]/u.test(clause.slice(t.start)));
      if (role !== 'text' && body.every((t) => isStopWord(t.word, context.language) || (body === words && context.toolWords.has(t.word)))) continue;
      if (role !== 'text' && !named && body === words && body.some((t) => context.toolWords.has(t.word))) continue;
      // The parameter's own noun written with a capital right before a name is part of it ("the Hotel Artemide").
      const withNoun = ownName && at + 1 === phrase[0] && named && /^\p{Lu}/u.test(clause.slice(tokens[at]!.start));
      const span = { start: withNoun ? tokens[at]!.start : words[0]!.start, end: words.at(-1)!.end };
      set(param, from(span, valueFor(param, clause.slice(span.start, span.end)), `the words after "${tokens[at]!.raw}"`));
      return true;
    }
    return false;
  };
  // Required parameters first: an optional one must not take the words a required one needs.
  const byNeed = () => [...open().filter((p) => p.required), ...open().filter((p) => !p.required)];
  for (const param of byNeed()) tryIntroducers(param, true);
  for (const param of byNeed()) tryIntroducers(param, false);
  // A value in front of its parameter's noun ("the driveway camera").
  for (const param of byNeed().filter((p) => p.type === 'string' && roleOf(p) !== 'text' && roleOf(p) !== 'identifier')) {
    const phrase = modifierBefore(tokens, param, context.language, tokenTaken);
    if (!phrase) continue;
    const span = { start: tokens[phrase[0]]!.start, end: tokens[phrase[1]]!.end };
    set(param, from(span, clause.slice(span.start, span.end), `the words before "${tokens[phrase[1] + 1]!.raw}"`));
  }
  // Quoted text left over goes to the parameter named right beside it ("my 'Focus' playlist"), else to the
  // first open text parameter, required ones first.
  for (const quote of texts.filter((m) => m.kind === 'quoted' && !overlaps(m.start, m.end, taken))) {
    const near = tokens
      .filter((t) => (t.end <= quote.start && quote.start - t.end <= 12) || (t.start >= quote.end && t.start - quote.end <= 12))
      .map((t) => t.word);
    const named = open().find((p) => p.nameWords.some((w) => near.includes(w)));
    const target = named ?? byNeed()[0];
    if (!target) break;
    set(target, from(quote, valueFor(target, String(quote.value)), named ? `quoted beside "${named.nameWords.join(' ')}"` : 'quoted in the request'));
  }
  // A colon introduces the value of the one required text parameter left; with none, a capitalised name left over
  // goes to the first optional title or query parameter ("play Bohemian Rhapsody by Queen").
  const left = open().filter((p) => p.required && p.type === 'string');
  const optional = open().filter((p) => !p.required && p.type === 'string' && ['title', 'query', 'creator', 'other'].includes(roleOf(p)));
  if (left.length === 0 && optional.length === 0) return;
  const target = left[0] ?? optional[0]!;
  const namesOnly = left.length === 0;
  const colon = /(?<!\d):|:(?!\d)/.exec(clause)?.index ?? -1;
  if (!namesOnly && colon >= 0 && clause.slice(colon + 1).trim()) {
    const start = colon + 1 + (clause.slice(colon + 1).length - clause.slice(colon + 1).trimStart().length);
    // Up to the next value another parameter took; a name or title also ends at a comma ("contact: Laura Chen, 415-555-0199").
    let end = clause.trimEnd().length;
    for (const t of taken) if (t.start >= start && t.start < end) end = t.start;
    const comma = roleOf(target) === 'text' ? -1 : clause.slice(start, end).search(/[,;]/);
    if (comma >= 0) end = start + comma;
    const value = clause.slice(start, end).replace(/[\s,;:]+$/u, '');
    if (value) {
      set(target, from({ start, end: start + value.length }, value, 'the text after the colon'));
      return;
    }
  }
  // What is left once the words asking for the tool are set aside, unless it only points elsewhere ("the README").
  const rest: number[] = [];
  tokens.forEach((token, i) => {
    if (!tokenTaken(i) && !context.toolWords.has(token.word)) rest.push(i);
  });
  const text = roleOf(target) === 'text';
  let begin: number;
  if (text) {
    // Free text starts past the words that ask for the tool, the function words and the values
    // around them, and right after a connector ("remind me to call mom", "rappelle-moi de payer").
    let after = -1;
    for (let i = 0; i < tokens.length; i++) {
      const word = tokens[i]!.word;
      if (TEXT_CONNECTORS.test(word)) {
        after = i + 1;
        break;
      }
      if (tokenTaken(i) || context.toolWords.has(word) || TEXT_SKIP.test(word) || (i === 0 && isRequestVerb(word, context.language))) continue;
      after = i;
      break;
    }
    while (after >= 0 && after < tokens.length && (tokenTaken(after) || TEXT_CONNECTORS.test(tokens[after]!.word))) after++;
    if (after < 0 || after >= tokens.length) return;
    begin = after;
    // "the README", "this file": a short phrase that points at something else is not the text itself.
    const phrase = tokens.slice(begin).filter((_, k) => !tokenTaken(begin + k));
    const pointer = /^(the|this|that|my|our|these|those|ce|cette|le|la|el|der|die|das|mon|ma|mi|mein|meine)$/;
    if ((pointer.test(tokens[begin]!.word) || pointer.test(tokens[begin - 1]?.word ?? '')) && phrase.length <= 3) return;
  } else {
    // Past function words, the verb the request starts with ("put the blue hoodie…") and words that introduce a name ("called").
    const firstContent = rest.findIndex(
      (i) =>
        !isStopWord(tokens[i]!.word, context.language) &&
        !(i === 0 && isRequestVerb(tokens[i]!.word, context.language)) &&
        !NAME_INTRODUCERS.test(tokens[i]!.word),
    );
    if (firstContent < 0) return;
    begin = rest[firstContent]!;
    // A name left over is written with a capital; a code (a ticker, a reference) with capitals or digits.
    if ((namesOnly || roleOf(target) === 'identifier') && !/^[\p{Lu}\p{N}]/u.test(clause.slice(tokens[begin]!.start))) return;
    const before = begin > 0 ? tokens[begin - 1]!.word : '';
    // "the README": a pointer at something else, for free text or a query; a name, a place or a title is often "the …" ("the bedroom", "the hoodie").
    if (
      ['query', 'other'].includes(roleOf(target)) &&
      /^(the|this|that|my|our|these|those|ce|cette|le|la|el|der|die|das)$/.test(before) &&
      !context.toolWords.has(before)
    )
      return;
  }
  let end = begin;
  const long = text;
  const capitals = ['place', 'person', 'creator'].includes(roleOf(target)) && /^\p{Lu}/u.test(clause.slice(tokens[begin]!.start));
  for (let i = begin + 1; i < tokens.length && !tokenTaken(i); i++) {
    const capitalWord = /^\p{Lu}/u.test(clause.slice(tokens[i]!.start));
    if (!long && (/[,;!?]/.test(clause.slice(tokens[i - 1]!.end, tokens[i]!.start)) || (isBoundary(tokens[i]!.word) && !capitalWord))) break;
    // The words that chose the tool end a name ("software engineer jobs", "NBA standings"), unless written with
    // capitals inside a capitalised name ("Premier League table").
    const capitalised = (k: number) => /^\p{Lu}/u.test(clause.slice(tokens[k]!.start));
    if (!long && context.toolWords.has(tokens[i]!.word) && !(capitalWord && capitalised(i - 1) && i + 1 < tokens.length && !tokenTaken(i + 1))) break;
    if (capitals && !/^[\p{Lu}\p{N}]/u.test(clause.slice(tokens[i]!.start))) break;
    end = i;
  }
  while (end > begin && isStopWord(tokens[end]!.word, context.language) && !/^\p{Lu}/u.test(clause.slice(tokens[end]!.start))) end--;
  // A name's capitalised first word may be among those that chose the tool ("book the Hotel Artemide").
  while (
    !text &&
    begin > 1 &&
    context.toolWords.has(tokens[begin - 1]!.word) &&
    /^\p{Lu}/u.test(clause.slice(tokens[begin - 1]!.start)) &&
    /^\p{Lu}/u.test(clause.slice(tokens[begin]!.start)) &&
    /^\s+$/.test(clause.slice(tokens[begin - 1]!.end, tokens[begin]!.start))
  )
    begin--;
  // A value that ends in the parameter's own noun keeps it ("the living room", "the kids' room").
  if (
    !text &&
    end + 1 < tokens.length &&
    !tokenTaken(end + 1) &&
    target.nameWords.includes(tokens[end + 1]!.word) &&
    !/[,;:]/.test(clause.slice(tokens[end]!.end, tokens[end + 1]!.start))
  )
    end++;
  // A name is the person or thing, not its possessive ("Maria's phone number").
  const possessive = !text && /['’]s$/.test(tokens[end]!.raw) ? 2 : 0;
  const span = { start: tokens[begin]!.start, end: tokens[end]!.end - possessive };
  set(target, from(span, clause.slice(span.start, span.end), 'the rest of the request, past the words that chose the tool'));
}
