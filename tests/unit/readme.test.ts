import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('README examples', () => {
  it('has TypeScript examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
  });

  blocks.forEach((code, i) => {
    it(`example ${i + 1} runs and prints what its comments say`, () => {
      // Written inside the package so `import … from 'cugar'` resolves to this checkout.
      const dir = join(root, '.vitest-reports');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `readme-example-${i + 1}.mts`);
      writeFileSync(file, code);
      const output = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', timeout: 60_000 });
      const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]!.trim());
      const lines = output
        .trim()
        .split('\n')
        .map((l) => l.trim());
      expect(lines).toHaveLength(expected.length);
      expected.forEach((want, j) => expect(lines[j]).toBe(want));
    });
  });
});
