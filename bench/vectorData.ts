// Seeded data of the vector-search benchmark beyond bench/corpus.ts: dense random vectors, and
// documents written on topics (the corpus of corpus.ts draws every word independently, so its
// documents have no neighbourhoods for an approximate index to find).
import { createSeededRandom } from '../src/core/testing.ts';

const SYLLABLES = 'ka ri to mu sen la vo ne shi pa dor el qui ra zu an te mo li fa go re si un ba co de ti ru ha'.split(' ');

/** `count` × `dimension` values uniform in [-1, 1), seeded. */
export function denseRandom(count: number, dimension: number, seed: number): Float32Array {
  const random = createSeededRandom(seed);
  const out = new Float32Array(count * dimension);
  for (let i = 0; i < out.length; i++) out[i] = random.next() * 2 - 1;
  return out;
}

/** A vocabulary of `size` distinct made-up words of two to four syllables. */
function vocabulary(size: number, seed: number): string[] {
  const random = createSeededRandom(seed);
  const words = new Set<string>();
  while (words.size < size) {
    const syllables = 2 + Math.floor(random.next() * 3);
    let word = '';
    for (let s = 0; s < syllables; s++) word += SYLLABLES[Math.floor(random.next() * SYLLABLES.length)]!;
    words.add(word);
  }
  return [...words];
}

/** Documents on topics: each topic owns 24 words of a shared vocabulary; a document is about one topic. */
export interface TopicalCorpus {
  /** `count` documents of about `bytes` bytes: half their words from their topic, half from the whole vocabulary. */
  documents(count: number, bytes: number, seed: number): string[];
  /** Short queries: 2–6 words of one topic. */
  queries(count: number, seed: number): string[];
}

export function topicalCorpus(topics: number, seed = 5): TopicalCorpus {
  const words = vocabulary(Math.max(2000, topics * 8), seed);
  const random = createSeededRandom(seed + 1);
  const own = Array.from({ length: topics }, () => Array.from({ length: 24 }, () => words[Math.floor(random.next() * words.length)]!));
  // Zipf-ish: squaring a uniform favours the front of the vocabulary.
  const background = (r: number) => words[Math.floor(r * r * words.length)]!;
  return {
    documents(count, bytes, docSeed) {
      const rnd = createSeededRandom(docSeed);
      const docs: string[] = [];
      for (let d = 0; d < count; d++) {
        const topic = own[Math.floor(rnd.next() * topics)]!;
        let text = '';
        while (text.length < bytes) text += `${rnd.next() < 0.5 ? topic[Math.floor(rnd.next() * topic.length)]! : background(rnd.next())} `;
        docs.push(text.slice(0, bytes));
      }
      return docs;
    },
    queries(count, querySeed) {
      const rnd = createSeededRandom(querySeed);
      return Array.from({ length: count }, () => {
        const topic = own[Math.floor(rnd.next() * topics)]!;
        const n = 2 + Math.floor(rnd.next() * 5);
        return Array.from({ length: n }, () => topic[Math.floor(rnd.next() * topic.length)]!).join(' ');
      });
    },
  };
}

/**
 * `count` × `dimension` vectors in seeded Gaussian clusters of about `perCluster` points, the
 * clusters themselves grouped in about √clusters topics (a cluster's centre is its topic's
 * centre plus an equal random part, so clusters of one topic have a cosine near 0.5): the
 * nested shape of real embedding collections rather than uniform noise. Each point is its
 * cluster's unit centre plus noise of norm about `spread` (two points of one cluster have a
 * cosine near 1 / (1 + spread²)). Rows come in random cluster order.
 */
export function clustered(count: number, dimension: number, perCluster: number, spread: number, seed: number): Float32Array {
  const random = createSeededRandom(seed);
  const gauss = () => {
    // Box–Muller.
    const u = 1 - random.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.next());
  };
  const unitGaussian = () => {
    const v = Float64Array.from({ length: dimension }, gauss);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const clusters = Math.max(1, Math.round(count / perCluster));
  const topics = Array.from({ length: Math.max(1, Math.round(Math.sqrt(clusters))) }, unitGaussian);
  const centres = new Float32Array(clusters * dimension);
  for (let c = 0; c < clusters; c++) {
    const topic = topics[c % topics.length]!;
    const own = unitGaussian();
    const centre = topic.map((x, i) => x + own[i]!);
    const norm = Math.hypot(...centre);
    for (let i = 0; i < dimension; i++) centres[c * dimension + i] = centre[i]! / norm;
  }
  const sigma = spread / Math.sqrt(dimension);
  const out = new Float32Array(count * dimension);
  for (let row = 0; row < count; row++) {
    const c = Math.floor(random.next() * clusters);
    for (let i = 0; i < dimension; i++) out[row * dimension + i] = centres[c * dimension + i]! + sigma * gauss();
  }
  return out;
}
