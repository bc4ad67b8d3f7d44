import type { CodeParser, CodeParserSource } from '../core/index.ts';

/**
 * @babel/parser for the code tools, loaded on the first analysis: hosts that never analyse code
 * never load it, and browser builds keep it in a chunk of its own.
 */
export const babelParser: CodeParserSource = {
  load: async () => (await import('@babel/parser')).parse as unknown as CodeParser,
};
