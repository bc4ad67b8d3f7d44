import { DEFAULT_HTML_LIMITS, preflightHtml, type HtmlLimits } from './htmlPreflight.ts';
import { lookupTable } from '../../lookupTable.ts';

/** The few DOM members the extractor uses: the same on linkedom and a native DOM. */
interface DomElement {
  readonly tagName: string;
  readonly children: ArrayLike<DomElement>;
  readonly childNodes: ArrayLike<{ nodeType: number; textContent: string | null }>;
  readonly parentElement: DomElement | null;
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
  closest(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  remove(): void;
}
interface DomDocument {
  readonly title: string;
  readonly body: DomElement | null;
  readonly documentElement: DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

/** One kept block of the main text. */
export interface TextBlock {
  kind: 'heading' | 'paragraph' | 'item' | 'quote' | 'code';
  text: string;
}

/** The main text of a page. */
export interface ExtractedPage {
  title: string;
  /** Blocks in document order, joined: headings and paragraphs separated by blank lines, list items as `- …`. */
  text: string;
  blocks: TextBlock[];
  words: number;
}

/** Elements that are never main text. */
const JUNK =
  'script, style, noscript, template, svg, canvas, iframe, object, embed, nav, footer, aside, form, button, select, input, textarea, dialog, menu, ' +
  '[hidden], [aria-hidden="true"], [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], [role="dialog"], [role="alert"]';
/** Class and id words of boilerplate containers. */
const NEGATIVE =
  /(^|[\s_-])(comments?|share|sharing|social|cookies?|consent|banner|sidebar|footer|menu|nav|navbar|navigation|breadcrumbs?|promo|advert|ads?|sponsored|related|subscribe|newsletter|popup|modal|masthead|skip|pagination|pager|signup|toolbar|widget|outbrain|disqus)($|[\s_-])/i;
/** Class and id words of content containers, which a negative word does not remove. */
const POSITIVE = /(^|[\s_-])(article|content|main|post|entry|story|body|text|prose)($|[\s_-])/i;
const BLOCKS: Record<string, TextBlock['kind']> = lookupTable({
  H1: 'heading',
  H2: 'heading',
  H3: 'heading',
  H4: 'heading',
  H5: 'heading',
  H6: 'heading',
  P: 'paragraph',
  LI: 'item',
  DT: 'item',
  DD: 'paragraph',
  BLOCKQUOTE: 'quote',
  PRE: 'code',
  FIGCAPTION: 'paragraph',
  TD: 'paragraph',
  TH: 'paragraph',
});
/** Containers whose own loose text counts as a paragraph. */
const LOOSE_TEXT = new Set(['DIV', 'SECTION', 'ARTICLE', 'MAIN', 'BODY', 'TD']);

const clean = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

/**
 * Turns markup into a document: linkedom on Node and Workers (`linkedomParser` in `src/edge`), or a
 * native `DOMParser` where the host has one. Injected, so a bundle that never extracts a page
 * carries no DOM implementation.
 */
export type HtmlParser = (html: string) => unknown;

interface Candidate {
  element: DomElement;
  kind: TextBlock['kind'];
  text: string;
  linkDensity: number;
}

function dropBoilerplate(dom: DomDocument, byClassNames: boolean): void {
  for (const element of Array.from(dom.querySelectorAll(JUNK))) element.remove();
  // A page header outside the article (logo, menu) is boilerplate; an article's own header holds its title.
  for (const element of Array.from(dom.querySelectorAll('header'))) if (!element.closest('article, main')) element.remove();
  if (!byClassNames) return;
  for (const element of Array.from(dom.querySelectorAll('[class], [id]'))) {
    if (element.tagName === 'BODY' || element.tagName === 'HTML' || element.tagName === 'ARTICLE' || element.tagName === 'MAIN') continue;
    const words = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`;
    if (NEGATIVE.test(words) && !POSITIVE.test(words)) element.remove();
  }
}

/** Blocks in document order; a block inside another block (a `p` in an `li`) is part of the outer one. */
function collectCandidates(root: DomElement): Candidate[] {
  const found: Candidate[] = [];
  const stack: DomElement[] = [root];
  while (stack.length > 0) {
    const element = stack.pop()!;
    const kind = BLOCKS[element.tagName];
    if (kind) {
      const text = clean(element.textContent);
      if (text !== '') {
        let linked = 0;
        for (const link of Array.from(element.querySelectorAll('a'))) linked += clean(link.textContent).length;
        found.push({ element, kind, text, linkDensity: linked / text.length });
      }
      continue;
    }
    if (LOOSE_TEXT.has(element.tagName)) {
      const loose = clean(
        Array.from(element.childNodes)
          .filter((node) => node.nodeType === 3)
          .map((node) => node.textContent)
          .join(' '),
      );
      if (loose.length >= 40) found.push({ element, kind: 'paragraph', text: loose, linkDensity: 0 });
    }
    const children = element.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return found;
}

/** Readability's idea, small: each substantial, link-poor block scores its parent in full and its grandparent by half. */
function bestContainer(candidates: readonly Candidate[], fallback: DomElement): DomElement {
  const scores = new Map<DomElement, number>();
  const order: DomElement[] = [];
  const credit = (element: DomElement | null, amount: number) => {
    if (!element) return;
    if (!scores.has(element)) order.push(element);
    scores.set(element, (scores.get(element) ?? 0) + amount);
  };
  for (const candidate of candidates) {
    if (candidate.kind === 'heading' || candidate.text.length < 25) continue;
    const base = 1 + (candidate.text.match(/[,;]/g)?.length ?? 0) + Math.min(candidate.text.length / 100, 3);
    const score = base * (1 - candidate.linkDensity);
    const parent = candidate.element.parentElement;
    credit(parent, score);
    credit(parent?.parentElement ?? null, score / 2);
  }
  let best = fallback;
  let top = 0;
  for (const element of order) {
    const score = scores.get(element)!;
    if (score > top) {
      best = element;
      top = score;
    }
  }
  // A container whose parent scores nearly as well is one column of a wider article: take the parent.
  const parent = best.parentElement;
  if (parent && (scores.get(parent) ?? 0) >= top * 0.75) return parent;
  return best;
}

function within(element: DomElement, container: DomElement): boolean {
  for (let at: DomElement | null = element; at; at = at.parentElement) if (at === container) return true;
  return false;
}

/** Fewer words than this, and the extraction is tried again without the class and id heuristics. */
const SHORT_RESULT_WORDS = 60;

/**
 * Parse `html` with `parse` and keep its main text: scripts, styles, navigation, headers,
 * footers, asides, forms and containers named like boilerplate are dropped; the container
 * richest in long, link-poor paragraphs is chosen; within it, headings, paragraphs, list
 * items, quotes and code are kept, except link lists and short fragments. A result under 60
 * words is tried again without the class and id words. Refuses HTML bombs first
 * ({@link preflightHtml}). Deterministic: the same markup gives the same text.
 *
 * @example
 * const page = await extractMainText(html, (markup) => new DOMParser().parseFromString(markup, 'text/html'));
 */
export async function extractMainText(html: string, parse: HtmlParser, limits: HtmlLimits = DEFAULT_HTML_LIMITS): Promise<ExtractedPage> {
  preflightHtml(html, limits);
  // A fragment gets a root element, so every parser builds the same full document from it.
  const source = /<html[\s>]/i.test(html) ? html : `<!doctype html><html><body>${html}</body></html>`;
  const first = extractFrom((await parse(source)) as DomDocument, true);
  if (first.words >= SHORT_RESULT_WORDS) return first;
  // Class and id words can misfire (`<div class="page has-ads">` around the article): a short
  // result is tried again without them, and the longer of the two is kept.
  const second = extractFrom((await parse(source)) as DomDocument, false);
  return second.words > first.words ? second : first;
}

function extractFrom(dom: DomDocument, byClassNames: boolean): ExtractedPage {
  const h1 = dom.querySelectorAll('h1')[0];
  const title = clean(dom.title) || clean(h1?.textContent ?? null);
  dropBoilerplate(dom, byClassNames);
  const root = dom.body ?? dom.documentElement;
  if (!root) return { title, text: '', blocks: [], words: 0 };
  const candidates = collectCandidates(root);
  const container = bestContainer(candidates, root);
  const blocks: TextBlock[] = [];
  for (const candidate of candidates) {
    if (!within(candidate.element, container)) continue;
    if (candidate.linkDensity > 0.5) continue;
    if (candidate.kind === 'paragraph' && candidate.text.length < 20 && !/[.!?:]$/.test(candidate.text)) continue;
    if (blocks.at(-1)?.text === candidate.text) continue;
    blocks.push({ kind: candidate.kind, text: candidate.text });
  }
  const text = blocks.map((block) => (block.kind === 'item' ? `- ${block.text}` : block.text)).join('\n\n');
  return { title, text, blocks, words: text === '' ? 0 : text.split(/\s+/).length };
}
