import type { HtmlParser } from '../core/index.ts';

type LinkedomModule = { parseHTML(html: string): { document: unknown } };
let linkedom: Promise<LinkedomModule> | undefined;

/**
 * The {@link HtmlParser} over linkedom, a pure-JS DOM that runs on Node, on Workers and in a
 * browser. The package is imported on first use; hosts that pass this parser carry it, others
 * do not (about 140 KB gzipped).
 */
export const linkedomParser: HtmlParser = async (html) => {
  linkedom ??= import('linkedom') as Promise<LinkedomModule>;
  return (await linkedom).parseHTML(html).document;
};
