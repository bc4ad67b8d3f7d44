import { createSeededRandom } from '../src/core/testing.ts';

// A fixed vocabulary of common English words; documents draw from it with a Zipf-like skew
// so term frequencies look like prose rather than uniform noise.
const VOCABULARY = `the of and to in is was for on that with as by at from his her it an were are which this be or
have had not but one all their they been has when who will more no if out so said what up its about into than them can only
other new some could time these two may then do first any my now such like our over man me even most made after also did
many before must through back years where much your way well down should because each just those people how too little state
good very make world still own see men work long get here between both life being under never day same another know while last
might us great old year off come since against go came right used take three states himself few house use during without again
place american around however home small found mrs thought went say part once general high upon school every does got united
left number course war until always away something fact though water less public put think almost hand enough far took head
yet government system better set told nothing night end why called didn find look going asked later point knew city next program
business give group toward young days let room president side social given present several order national possible rather second
face per among form important often things looked early white case john become large big need four within felt along children saw
best church ever least power development light thought agent planner memory vector index budget approval journal trace audit
replay runtime browser worker edge server storage database query search ranking tool registry profile policy retry timeout`.split(/\s+/);

/** A deterministic generator of English-like documents of about `bytes` bytes. */
export function makeCorpus(count: number, bytes: number, seed = 42): string[] {
  const random = createSeededRandom(seed);
  const docs: string[] = [];
  for (let d = 0; d < count; d++) {
    let text = '';
    let sentence = 0;
    while (text.length < bytes) {
      // Zipf-ish: squaring a uniform favours the front of the vocabulary.
      const r = random.next();
      const word = VOCABULARY[Math.floor(r * r * VOCABULARY.length)]!;
      text += sentence === 0 ? word[0]!.toUpperCase() + word.slice(1) : word;
      sentence++;
      if (sentence > 8 && random.next() < 0.15) {
        text += '. ';
        sentence = 0;
      } else text += ' ';
    }
    docs.push(text.slice(0, bytes));
  }
  return docs;
}

/** Short queries drawn from the same vocabulary. */
export function makeQueries(count: number, seed = 7): string[] {
  const random = createSeededRandom(seed);
  return Array.from({ length: count }, () => {
    const n = 2 + Math.floor(random.next() * 5);
    return Array.from({ length: n }, () => VOCABULARY[Math.floor(random.next() * VOCABULARY.length)]!).join(' ');
  });
}
