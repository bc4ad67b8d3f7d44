import { FetchLimitError } from '../../net/netErrors.ts';

/** How complex a page may be before it is parsed. */
export interface HtmlLimits {
  /** Deepest nesting of elements that need a closing tag. Default 800. */
  maxDepth: number;
  /** Most start tags. Default 60,000. */
  maxElements: number;
  /** Most attributes on one element. Default 256. */
  maxAttributes: number;
}

export const DEFAULT_HTML_LIMITS: HtmlLimits = { maxDepth: 800, maxElements: 60_000, maxAttributes: 256 };

/** Elements that never hold children, or that the parser closes by itself: they do not deepen the tree. */
const FLAT = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
  'p',
  'li',
  'dt',
  'dd',
  'option',
  'tr',
  'td',
  'th',
]);
/** Elements whose content is raw text, skipped to their end tag. */
const RAW = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noscript']);

function isNameChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 45 || code === 58;
}

/** Where the end tag of raw-text element `name` starts, searching from `from` (the end of the text if none). */
function rawEnd(html: string, name: string, from: number): number {
  for (let k = html.indexOf('</', from); k >= 0; k = html.indexOf('</', k + 2)) {
    if (html.slice(k + 2, k + 2 + name.length).toLowerCase() === name) return k;
  }
  return html.length;
}

/**
 * One linear pass over the markup, before any DOM is built: refuses HTML bombs — nesting
 * deeper than `maxDepth`, more than `maxElements` tags, an element with more than
 * `maxAttributes` attributes — with a {@link FetchLimitError} `page_too_complex`, so the
 * parser never spends super-linear time on a hostile page. Comments and raw-text elements are
 * skipped; the depth is an estimate that errs on the deep side for malformed markup.
 */
export function preflightHtml(html: string, limits: HtmlLimits = DEFAULT_HTML_LIMITS): { elements: number; depth: number } {
  let depth = 0;
  let deepest = 0;
  let elements = 0;
  const refuse = (what: string) => {
    throw new FetchLimitError('page_too_complex', `the page is too complex to parse safely: ${what}`, { ...limits });
  };
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    const closing = html.charCodeAt(lt + 1) === 47;
    let j = lt + (closing ? 2 : 1);
    const nameStart = j;
    while (j < html.length && isNameChar(html.charCodeAt(j))) j++;
    if (j === nameStart) {
      i = lt + 1;
      continue;
    }
    const name = html.slice(nameStart, j).toLowerCase();
    // Attributes: count the starts of runs that follow white space, up to the closing `>`.
    let attributes = 0;
    let quote = 0;
    let afterSpace = false;
    for (; j < html.length; j++) {
      const code = html.charCodeAt(j);
      if (quote) {
        if (code === quote) quote = 0;
        continue;
      }
      if (code === 62) break;
      if (code === 34 || code === 39) quote = code;
      else if (code === 32 || code === 9 || code === 10 || code === 13 || code === 12) afterSpace = true;
      else if (afterSpace) {
        afterSpace = false;
        if (code !== 47 && code !== 61) attributes++;
      }
    }
    if (attributes > limits.maxAttributes) refuse(`an element with more than ${limits.maxAttributes} attributes`);
    const selfClosing = html.charCodeAt(j - 1) === 47;
    i = j + 1;
    if (closing) {
      if (!FLAT.has(name) && depth > 0) depth--;
      continue;
    }
    if (++elements > limits.maxElements) refuse(`more than ${limits.maxElements} elements`);
    if (RAW.has(name)) {
      i = rawEnd(html, name, i);
      continue;
    }
    if (!FLAT.has(name) && !selfClosing) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (depth > limits.maxDepth) refuse(`elements nested more than ${limits.maxDepth} deep`);
    }
  }
  return { elements, depth: deepest };
}
