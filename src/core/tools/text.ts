import * as z from 'zod';
import { tokenize } from '../embed/tokenize.ts';
import { defineTool, type ToolSpec } from './tool.ts';

/** Largest text `text_stats` accepts, in characters. */
export const MAX_TEXT_LENGTH = 1_000_000;

/** Counts and the most frequent words of a text. */
export interface TextStats {
  characters: number;
  words: number;
  uniqueWords: number;
  sentences: number;
  lines: number;
  averageWordLength: number;
  topWords: Array<{ word: string; count: number }>;
}

/** Compute {@link TextStats}; words are the same Unicode-aware tokens the embedder uses. */
export function textStats(text: string): TextStats {
  const words = tokenize(text);
  const counts = new Map<string, number>();
  let letters = 0;
  for (const word of words) {
    counts.set(word, (counts.get(word) ?? 0) + 1);
    letters += [...word].length;
  }
  const topWords = [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 5)
    .map(([word, count]) => ({ word, count }));
  const sentences = text.split(/[.!?]+(?:\s|$)/u).filter((s) => /[\p{L}\p{N}]/u.test(s)).length;
  return {
    characters: [...text].length,
    words: words.length,
    uniqueWords: counts.size,
    sentences,
    lines: text === '' ? 0 : text.split(/\r\n|\r|\n/).length,
    averageWordLength: words.length === 0 ? 0 : Math.round((letters / words.length) * 100) / 100,
    topWords,
  };
}

/** The text tools: `echo` and `text_stats`. */
export const tools: Record<string, ToolSpec> = {
  echo: defineTool({
    description: 'Echo, repeat or say back a message exactly as given.',
    parameters: z.object({ message: z.string().max(MAX_TEXT_LENGTH).describe('text to echo back') }),
    cost: 0.05,
    latency: 1,
    capabilities: ['text'],
    idempotent: true,
    handler: ({ message }) => message,
  }),
  text_stats: defineTool({
    description: 'Text statistics: count the words, characters, sentences and lines of a text and list its most frequent words.',
    parameters: z.object({ text: z.string().max(MAX_TEXT_LENGTH).describe('text to analyse') }),
    cost: 0.1,
    latency: 2,
    capabilities: ['text'],
    idempotent: true,
    handler: ({ text }) => textStats(text),
  }),
};
