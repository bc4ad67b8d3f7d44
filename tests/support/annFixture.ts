import { createSeededRandom } from '../../src/core/testing.ts';
import { IvfVectorIndex } from '../../src/core/vector/ivfVectorIndex.ts';

export const ANN_DIM = 16;

/** `count` seeded records in 30 clusters (a random centre plus uniform noise), ids `r0 …`. */
export function annRecords(count: number, seed = 4) {
  const random = createSeededRandom(seed);
  const centres = Array.from({ length: 30 }, () => Array.from({ length: ANN_DIM }, () => random.next() * 2 - 1));
  return Array.from({ length: count }, (_, i) => {
    const centre = centres[Math.floor(random.next() * centres.length)]!;
    return { id: `r${i}`, vector: Float32Array.from(centre, (v) => v + (random.next() - 0.5) * 0.6), metadata: { i } };
  });
}

/** A trained index over `annRecords(3000)`. */
export function trainedAnnIndex(): IvfVectorIndex {
  const index = new IvfVectorIndex(ANN_DIM, { trainAt: 1000 });
  index.upsert(annRecords(3000));
  index.train();
  return index;
}
