/**
 * Booleans from wording: a parameter is true when the request uses its words ("shuffle",
 * "make it public", "with breakfast"), false when they are negated ("don't shuffle",
 * "without breakfast", "not public", "sans", "sin", "ohne", "sem", "senza"), and left out
 * when the request does not speak to it.
 */
import { stem } from '../ranking/stem.ts';
import { groups, translateAny } from '../ranking/synonyms.ts';
import type { Token } from '../ranking/tokens.ts';
import type { Filled, Param } from './types.ts';

const NEGATIONS = new Set(
  "not no don't dont do_not never without exclude excluding skip non nor isn't aren't shouldn't won't pas sans ne non sin nunca ohne nicht kein keine sem nao não senza".split(
    ' ',
  ),
);
const YES = new Set('true yes on enabled enable'.split(' '));
const NO = new Set('false off disabled disable'.split(' '));

/** Words of a boolean's name and description that carry its meaning (not "whether", "include", …). */
function meaningStems(param: Param): Set<string> {
  const generic = new Set(['whether', 'include', 'includ', 'is', 'use', 'flag', 'enabl', 'option', 'set', 'true', 'fals', 'default', 'if', 'should', 'make']);
  const stems = new Set<string>();
  for (const word of param.nameWords) if (word.length > 2) stems.add(stem(word));
  for (const s of [...stems]) if (generic.has(s)) stems.delete(s);
  // Words of the same meaning say it too ("direct" for nonstop).
  for (const s of [...stems]) for (const g of groups(s)) stems.add(`g:${g}`);
  return stems;
}

/** Parameters that say whether something is on: read from "turn on/off", "switch off", "allume", "apaga", "spegni", "aus". */
const POWER = /^(on|enabled?|power|active|state|switch)$/;
const ON_WORDS = new Set('on allume allumer enciende encender enciendo liga ligar acende acender accendi accendere ein einschalten an'.split(' '));
const OFF_WORDS = new Set('off eteins eteindre apaga apagar desliga desligar spegni spegnere aus ausschalten'.split(' '));

function readPower(tokens: readonly Token[], offset: number): Filled | undefined {
  for (let i = tokens.length - 1; i >= 0; i--) {
    const word = tokens[i]!.word;
    if (ON_WORDS.has(word) || OFF_WORDS.has(word)) {
      const value = ON_WORDS.has(word);
      return { value, start: offset + tokens[i]!.start, end: offset + tokens[i]!.end, reason: `"${tokens[i]!.raw}" says ${value ? 'on' : 'off'}` };
    }
  }
  return undefined;
}

/** The value of boolean `param` the clause speaks to, if any. */
export function readBoolean(param: Param, tokens: readonly Token[], offset: number): Filled | undefined {
  if (param.nameWords.length === 1 && POWER.test(param.nameWords[0]!)) return readPower(tokens, offset);
  const stems = meaningStems(param);
  if (stems.size === 0) return undefined;
  for (let i = 0; i < tokens.length; i++) {
    // The parameter's word as written, or a word of another language the lexicon translates to it ("aléatoire");
    // "unlock" and "disable" say the opposite of "lock" and "able".
    const word = tokens[i]!.word;
    const opposite = /^(un|dis)(.{3,})$/.exec(word);
    if (opposite && stems.has(stem(opposite[2]!))) {
      return { value: false, start: offset + tokens[i]!.start, end: offset + tokens[i]!.end, reason: `"${tokens[i]!.raw}" says the opposite` };
    }
    if (!stems.has(stem(word)) && !stems.has(translateAny(word) ?? '') && !groups(stem(word)).some((g) => stems.has(`g:${g}`))) continue;
    const before = tokens.slice(Math.max(0, i - 3), i).map((t) => t.word);
    const after = tokens[i + 1]?.word;
    const negated = before.some((w) => NEGATIONS.has(w) || w.endsWith("n't")) || after === 'off';
    const value = after !== undefined && NO.has(after) ? false : after !== undefined && YES.has(after) ? true : !negated;
    const start = negated
      ? (tokens[Math.max(0, i - 3) + before.findIndex((w) => NEGATIONS.has(w) || w.endsWith("n't"))]?.start ?? tokens[i]!.start)
      : tokens[i]!.start;
    return {
      value,
      start: offset + Math.min(start, tokens[i]!.start),
      end: offset + tokens[i]!.end,
      reason: value ? `the request asks for "${tokens[i]!.raw}"` : `"${tokens[i]!.raw}" is negated`,
    };
  }
  return undefined;
}
