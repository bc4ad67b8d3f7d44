/**
 * Text parameters, the last step of slot filling: codes and currencies by their shape, then
 * phrases after the words that introduce them ("in New York", "called Road trip", "saying hi"),
 * values in front of a parameter's noun, quoted text, the text after a colon, and what is left
 * of the clause for one required text parameter.
 */
import { isStopWord, opensQuestion } from '../ranking/stem.ts';
import type { Token } from '../ranking/tokens.ts';
import type { FillContext } from './fill.ts';
import { modifierBefore } from './modifiers.ts';
import { currencyCode } from './numbers.ts';
import { identifierIn, introducerIndices, isBoundary, phraseAfter, roleOf, type Role } from './strings.ts';
import { dateKind, overlaps, type Filled, type Mention, type Param } from './types.ts';
import { isRequestVerb } from './verbs.ts';

/** Words that introduce a name in the languages read ("a folder called …", "una carpeta llamada …"). */
const NAME_INTRODUCERS = /^(called|named|titled|entitled|appelee|appele|llamada|llamado|chamada|chamado|chiamata|chiamato|namens|namen|mentioning|containing)$/;

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

/** Whether `token` is written with a capital in `clause` (a name, or a sentence start). */
function startsCapital(clause: string, token: Token): boolean {
  return /^\p{Lu}/u.test(clause.slice(token.start));
}

export function fillStrings(
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
  // A currency is a currency word or code, read first; no other reading gives one ("convert this PDF to Word" names none).
  let currencies = true;
  const open = () =>
    params.filter(
      (p) =>
        (p.type === 'string' || (p.type === 'array' && p.itemType === 'string')) &&
        input[p.name] === undefined &&
        !dateKind(p) &&
        (currencies || roleOf(p) !== 'currency'),
    );
  // A list parameter takes a phrase as its items ("with Ana and Ben").
  const valueFor = (param: Param, text: string): unknown =>
    param.type === 'array' ? text.split(/\s*(?:,|\band\b|&|\bet\b|\by\b|\bund\b)\s*/).filter(Boolean) : text;
  const blocked = () => [...taken, ...blockers];
  const tokenTaken = (i: number) => {
    const { start, end } = tokens[i]!;
    const hits = (t: { start: number; end: number }) => start < t.end && end > t.start;
    return taken.some(hits) || blockers.some(hits);
  };
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
  currencies = false;
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
      // (German writes every noun with a capital: there capitals mark no name.)
      const named = context.language !== 'de' && body.every((t) => /^[\p{Lu}\p{N}]/u.test(clause.slice(t.start)));
      if (role !== 'text' && body.every((t) => isStopWord(t.word, context.language) || (body === words && context.toolWords.has(t.word)))) continue;
      if (role !== 'text' && !named && body === words && body.some((t) => context.toolWords.has(t.word))) continue;
      // The parameter's own noun written with a capital right before a name is part of it ("the Hotel Artemide").
      const withNoun = ownName && at + 1 === phrase[0] && named && startsCapital(clause, tokens[at]!);
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
    // A capitalised name that ends in the parameter's noun keeps it ("Premier League", not "Premier").
    const capital = (i: number) => startsCapital(clause, tokens[i]!);
    const noun = phrase[1] + 1;
    const named = context.language !== 'de' && capital(noun) && tokens.slice(phrase[0], noun).every((_, k) => capital(phrase[0] + k));
    const span = { start: tokens[phrase[0]]!.start, end: tokens[named ? noun : phrase[1]]!.end };
    set(param, from(span, clause.slice(span.start, span.end), `the words before "${tokens[phrase[1] + 1]!.raw}"`));
  }
  // A name written right before a word that chose the tool is what the tool acts on ("my Comcast bill",
  // "the Netflix subscription"): the value of the one required name parameter left.
  const names = open().filter((p) => p.required && p.type === 'string' && !['text', 'identifier', 'currency'].includes(roleOf(p)));
  if (names.length === 1 && context.language !== 'de') {
    const capital = (i: number) => i > 0 && startsCapital(clause, tokens[i]!) && !tokenTaken(i) && !isStopWord(tokens[i]!.word, context.language);
    const at = tokens.findIndex((t, i) => context.toolWords.has(t.word) && capital(i - 1));
    if (at > 0) {
      let first = at - 1;
      while (first > 1 && at - first < 3 && capital(first - 1)) first--;
      // A possessive is the name's ("Maria's phone number").
      const end = tokens[at - 1]!.end - (/['’]s$/iu.test(tokens[at - 1]!.raw) ? 2 : 0);
      const span = { start: tokens[first]!.start, end };
      set(names[0]!, from(span, clause.slice(span.start, span.end), `the name before "${tokens[at]!.raw}"`));
    }
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
  // Where the text after the colon starts, past its spaces.
  const start = colon + 1 + (clause.slice(colon + 1).length - clause.slice(colon + 1).trimStart().length);
  // What follows a colon is the message when there is one to write ("text Jake: running late"), and the one name before it the recipient.
  const message = left.find((p) => roleOf(p) === 'text');
  if (!namesOnly && colon >= 0 && message && message !== target && clause.slice(colon + 1).trim()) {
    const value = clause.slice(start).trimEnd();
    set(message, from({ start, end: start + value.length }, value, 'the text after the colon'));
    const before = tokens.filter((t, i) => t.end <= colon && !tokenTaken(i) && !context.toolWords.has(t.word) && !isStopWord(t.word, context.language));
    const name = before.at(-1);
    if (name && before.length === 1 && roleOf(target) === 'person' && /^[\p{Lu}\p{N}+]/u.test(clause.slice(name.start)))
      set(target, from(name, clause.slice(name.start, name.end), 'the name before the colon'));
    return;
  }
  // A question after the colon is the request itself, not a name or a title ("calendar: what do I have on Friday?").
  const asked = colon >= 0 && opensQuestion(tokens.find((t) => t.start > colon)?.word ?? '');
  if (!namesOnly && colon >= 0 && clause.slice(colon + 1).trim() && (roleOf(target) === 'text' || !asked)) {
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
  // The verb the request opens with comes after its function words ("I need to see a dermatologist").
  const lead = openingIndex(tokens, context);
  // What is left once the words asking for the tool are set aside, unless it only points elsewhere ("the README").
  // Before a question's colon stands what it is about ("calendar: what do I have on Friday?"), not a value.
  const rest: number[] = [];
  tokens.forEach((token, i) => {
    if (!tokenTaken(i) && !context.toolWords.has(token.word) && !(asked && token.end <= colon)) rest.push(i);
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
      if (tokenTaken(i) || context.toolWords.has(word) || TEXT_SKIP.test(word) || (i === lead && isRequestVerb(word, context.language))) continue;
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
        !(i === lead && isRequestVerb(tokens[i]!.word, context.language)) &&
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
    // "my outfit" is a thing of one's own, not a place to look in, unless it is one ("my office", "my hotel").
    if (roleOf(target) === 'place' && POSSESSIVE.test(before) && !PLACE_NOUNS.test(tokens[begin]!.word) && !startsCapital(clause, tokens[begin]!)) return;
  }
  let end = begin;
  const long = text;
  const capitals = ['place', 'person', 'creator'].includes(roleOf(target)) && startsCapital(clause, tokens[begin]!);
  for (let i = begin + 1; i < tokens.length && !tokenTaken(i); i++) {
    const capitalWord = startsCapital(clause, tokens[i]!);
    if (!long && (/[,;!?]/.test(clause.slice(tokens[i - 1]!.end, tokens[i]!.start)) || (isBoundary(tokens[i]!.word) && !capitalWord))) break;
    // The words that chose the tool end a name ("software engineer jobs", "NBA standings"), unless written with
    // capitals inside a capitalised name ("Premier League table").
    const inName = context.language !== 'de' && capitalWord && startsCapital(clause, tokens[i - 1]!) && i + 1 < tokens.length && !tokenTaken(i + 1);
    if (!long && context.toolWords.has(tokens[i]!.word) && !inName) break;
    if (capitals && !/^[\p{Lu}\p{N}]/u.test(clause.slice(tokens[i]!.start))) break;
    end = i;
  }
  while (end > begin && isStopWord(tokens[end]!.word, context.language) && !startsCapital(clause, tokens[end]!)) end--;
  // A name's capitalised first word may be among those that chose the tool ("book the Hotel Artemide").
  while (
    !text &&
    context.language !== 'de' &&
    begin > 1 &&
    context.toolWords.has(tokens[begin - 1]!.word) &&
    startsCapital(clause, tokens[begin - 1]!) &&
    startsCapital(clause, tokens[begin]!) &&
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
  // A code is made of words with digits or all in capitals ("XK7P2Q", "UA 88"), not of a capitalised phrase ("the Budget sync meeting").
  const codeWord = (t: Token) => /\d/.test(t.raw) || /^\p{Lu}{2,}$/u.test(clause.slice(t.start, t.end));
  if (roleOf(target) === 'identifier' && !tokens.slice(begin, end + 1).every(codeWord)) return;
  set(target, from(span, clause.slice(span.start, span.end), 'the rest of the request, past the words that chose the tool'));
}

const POSSESSIVE = /^(?:my|your|our|his|her|their|mon|ma|mes|mi|mis|mein|meine|meinem|meiner|meu|minha|mio|mia)$/u;
const PLACE_NOUNS = /^(?:home|house|office|work|workplace|school|hotel|apartment|flat|place|room|parents|city|town|village|street)$/u;

/** Index of the clause's first token that is not a function word: where its verb stands, if it opens with one. */
export function openingIndex(tokens: readonly Token[], context: Pick<FillContext, 'language'>): number {
  const at = tokens.findIndex((t) => !isStopWord(t.word, context.language));
  return at < 0 ? 0 : at;
}
