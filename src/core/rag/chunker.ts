import * as z from 'zod';
import { parseOrThrow } from '../schema/validate.ts';

/** Chunking settings, in characters. */
export const ChunkOptionsSchema = z
  .object({
    /** Largest chunk. Default 800. */
    size: z.number().int().min(50).max(100_000).default(800),
    /** Text repeated from the end of one chunk at the start of the next. Default 120. */
    overlap: z.number().int().min(0).max(50_000).default(120),
  })
  .refine((o) => o.overlap < o.size, 'overlap must be smaller than size');
export type ChunkOptions = z.input<typeof ChunkOptionsSchema>;

/** A piece of a document and where it starts. */
export interface Chunk {
  text: string;
  /** Offset of the chunk's first character in the source text. */
  offset: number;
}

interface Piece {
  text: string;
  offset: number;
  /** Whether this sentence starts a paragraph: a good place to start a chunk. */
  paragraph: boolean;
}

// Sentences end at . ! ? (and their CJK forms) followed by space; paragraphs at blank lines.
const SENTENCE_END = /(?<=[.!?。！？])\s+/g;

/** Sentences (cut at word boundaries when longer than `size`), each marked if it starts a paragraph. */
function sentences(text: string, size: number): Piece[] {
  const out: Piece[] = [];
  const paragraph = /\S[\s\S]*?(?=\n\s*\n|$)/g;
  for (const para of text.matchAll(paragraph)) {
    const base = para.index;
    const body = para[0];
    let start = 0;
    let first = true;
    const ends = [...body.matchAll(SENTENCE_END)].map((m) => ({ end: m.index, next: m.index + m[0].length }));
    ends.push({ end: body.length, next: body.length });
    for (const { end, next } of ends) {
      let sentence = body.slice(start, end);
      let at = base + start;
      while (sentence.length > size) {
        const space = sentence.lastIndexOf(' ', size);
        const cut = space > size / 2 ? space : size;
        out.push({ text: sentence.slice(0, cut), offset: at, paragraph: first });
        first = false;
        const rest = sentence.slice(cut).replace(/^\s+/, '');
        at += sentence.length - rest.length;
        sentence = rest;
      }
      if (sentence.trim()) {
        out.push({ text: sentence, offset: at, paragraph: first });
        first = false;
      }
      start = next;
    }
  }
  return out;
}

/**
 * Split text into chunks of at most `size` characters that respect paragraphs, then
 * sentences, then words, with about `overlap` characters carried from each chunk into the next.
 *
 * @example
 * chunkText(longText, { size: 500, overlap: 50 }); // [{ text, offset }, …]
 */
export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const { size, overlap } = parseOrThrow(ChunkOptionsSchema, options, 'chunk options', 'invalid_chunk_options');
  const parts = sentences(text, size);
  const chunks: Chunk[] = [];
  let current: Piece[] = [];
  let length = 0;
  let covered = -1;
  const flush = () => {
    if (current.length === 0) return;
    const first = current[0]!;
    const last = current.at(-1)!;
    covered = last.offset + last.text.length;
    chunks.push({ text: text.slice(first.offset, last.offset + last.text.length).trim(), offset: first.offset });
    // Carry whole trailing pieces that fit in the overlap into the next chunk.
    const carried: Piece[] = [];
    let carriedLength = 0;
    for (let i = current.length - 1; i > 0; i--) {
      const piece = current[i]!;
      if (carriedLength + piece.text.length > overlap) break;
      carried.unshift(piece);
      carriedLength += piece.text.length;
    }
    current = carried;
    length = carriedLength;
  };
  for (const piece of parts) {
    // Close the chunk when the sentence would not fit, or at a paragraph once it is half full.
    if (length > 0 && (length + piece.text.length + 1 > size || (piece.paragraph && length >= size / 2))) flush();
    current.push(piece);
    length += piece.text.length + 1;
  }
  // The tail is new text unless it is only overlap carried from the last chunk.
  const tail = current.at(-1);
  if (tail && tail.offset + tail.text.length > covered) flush();
  return chunks;
}
