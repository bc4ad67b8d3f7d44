/**
 * Filling a step's arguments from its clause, driven by the tool's JSON Schema: each parameter
 * takes the value its words, type and format point at, and records the span of the goal it
 * came from and why. Optional parameters stay out unless the request speaks to them; required
 * ones that cannot be found are reported missing (never guessed from the whole clause).
 */
import { fold } from '../ranking/tokens.ts';
import type { Language } from '../ranking/stem.ts';
import { readBoolean } from './booleans.ts';
import { chooseOption } from './enums.ts';
import { expressionOf } from './expression.ts';
import { fillArrays } from './arrays.ts';
import { assignNumbers } from './numberSlots.ts';
import { readClause } from './clauseReading.ts';
import { enumList, exclusions } from './sets.ts';
import { codeIn, phoneIn, roleOf } from './strings.ts';
import { dateKind, overlaps, paramsOf, type Filled, type Param } from './types.ts';
import { fillStrings } from './fillStrings.ts';

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

/** Words before the one value of a from/to pair of enums that make it the target ("into Spanish", "ins Italienische") or the source ("from German"). */
const TO_CUE = /^(to|into|in|ins|en|a|al|au|nach|para|per)$/;
const FROM_CUE = /^(from|de|du|del|von|aus|da|dal|dall)$/;
/** The word after a number that makes it a length of stay, in the six languages. */
const NIGHTS = /^(nights?|noches?|nuits?|nachte?|notti|notte|noites?)$/;
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

  // A file name written after "to", "into" or "as" goes to a parameter that names a file ("rename a.txt to b.txt", "zip … into bundle.zip").
  for (const param of params) {
    if (param.type !== 'string' || input[param.name] !== undefined || !param.nameWords.includes('name')) continue;
    const file = texts.find(
      (m) =>
        m.kind === 'path' &&
        !String(m.value).includes('/') &&
        !overlaps(m.start, m.end, taken) &&
        /^(to|into|as|called|named|in|en|nach|zu|para|in)$/.test(tokens.filter((t) => t.end <= m.start).at(-1)?.word ?? ''),
    );
    if (file) set(param, from(file, file.value, 'the file name written in the request'));
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

  // A stay of N nights from a day a parameter took ends N days later ("2 nights starting Friday": check-out on Sunday).
  const stay = numbers.find(
    (m) => m.kind === 'number' && Number.isInteger(m.value) && (m.value as number) > 0 && (m.value as number) <= 365 && NIGHTS.test(fold(m.unit ?? '')),
  );
  const later = stay && dated.find((p) => input[p.name] === undefined && dateKind(p) === 'date' && p.nameWords.some((w) => LATER.test(w)));
  const first = later && dated.find((p) => p !== later && dateKind(p) === 'date' && typeof input[p.name] === 'string');
  if (stay && later && first) {
    const day = Date.parse(`${String(input[first.name])}T00:00:00Z`) + (stay.value as number) * 86_400_000;
    if (Number.isFinite(day))
      set(
        later,
        from(stay, new Date(day).toISOString().slice(0, 10), `"${clause.slice(stay.start, stay.end)} ${stay.unit ?? ''}" after ${String(input[first.name])}`),
      );
  }

  // 3. Enums and booleans the request speaks to; a from/to pair of enums takes its values in the order written.
  const source = params.find((p) => p.type === 'enum' && p.nameWords.some((w) => /^(from|source|src|base)$/.test(w)));
  const target = params.find((p) => p.type === 'enum' && p !== source && p.nameWords.some((w) => /^(to|target|dest|destination)$/.test(w)));
  if (source && target && input[source.name] === undefined && input[target.name] === undefined) {
    const spans = () => taken.map((t) => ({ start: t.start, end: t.end }));
    const first = chooseOption(source.options ?? [], tokens, offset, spans(), language);
    const second = first
      ? chooseOption(target.options ?? [], tokens, offset, [...spans(), { start: first.start - offset, end: first.end - offset }], language)
      : undefined;
    const before = (value: Filled) => tokens.filter((t) => t.end + offset <= value.start).at(-1)?.word ?? '';
    // English "a" is an article ("a German text"), elsewhere it means "to" ("traduce a inglés").
    const toward = (value: Filled) => TO_CUE.test(before(value)) && !(language === 'en' && before(value) === 'a');
    if (first && second) {
      const [early, late] = first.start < second.start ? [first, second] : [second, first];
      const swap = toward(early);
      set(source, swap ? late : early);
      set(target, swap ? early : late);
    } else if (first) {
      // One value of the pair: the word before it says which ("into Spanish", "from German").
      if (toward(first)) set(target, first);
      else if (FROM_CUE.test(before(first))) set(source, first);
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
        language,
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
