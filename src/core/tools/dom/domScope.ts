import * as z from 'zod';
import { NotFoundError, PolicyViolationError, ValidationError } from '../../errors.ts';
import { parseOrThrow } from '../../schema/validate.ts';
import type { DomDocumentLike, DomElementLike } from './domNodes.ts';

/** A CSS selector a tool call names: at most 500 characters. */
export const DomSelectorSchema = z.string().trim().min(1, 'a selector is required').max(500);

/** The selectors a page allows the DOM tools to read and act in: 1 to 32, each at most 300 characters. */
export const AllowSelectorsSchema = z.array(z.string().trim().min(1).max(300)).min(1, 'allow at least one selector').max(32);

/** Origins (`https://example.com`) navigations and form submissions may go to. */
export const AllowOriginsSchema = z
  .array(
    z.string().refine((value) => {
      try {
        return new URL(value).origin === value && /^https?:$/.test(new URL(value).protocol);
      } catch {
        return false;
      }
    }, 'an origin is scheme://host[:port], http or https, without a path'),
  )
  .max(32);

/** Split a comma-separated list at top-level commas (not inside brackets, parentheses or quotes). */
export function splitSelectorList(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

/** The page's `allow-selectors` attribute as a validated list (`ValidationError` `invalid_allow_selectors`). */
export function parseAllowSelectors(text: string): string[] {
  return parseOrThrow(AllowSelectorsSchema, splitSelectorList(text), 'allow-selectors', 'invalid_allow_selectors');
}

/** The page's `allow-origins` attribute (space- or comma-separated) as a validated list. */
export function parseAllowOrigins(text: string): string[] {
  const origins = text
    .split(/[\s,]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.replace(/\/+$/, ''));
  return parseOrThrow(AllowOriginsSchema, origins, 'allow-origins', 'invalid_allow_origins');
}

function queryAll(root: { querySelectorAll(selector: string): ArrayLike<DomElementLike> }, selector: string): DomElementLike[] {
  try {
    return Array.from(root.querySelectorAll(selector));
  } catch (cause) {
    throw new ValidationError(`"${selector}" is not a valid CSS selector`, { code: 'invalid_selector', cause, details: { selector } });
  }
}

/**
 * The parts of a page the DOM tools may see: the subtrees the page's allowed selectors match,
 * minus the excluded elements (the agent's own element, whose shadow DOM a selector never
 * reaches anyway) and everything inside them. Nothing outside is readable or actionable.
 */
export class DomScope {
  readonly selectors: readonly string[];
  readonly #root: DomDocumentLike;
  readonly #exclude: () => readonly DomElementLike[];

  /** `exclude`: the excluded elements, or a function giving them now (elements come and go). */
  constructor(root: DomDocumentLike, selectors: readonly string[], exclude: readonly DomElementLike[] | (() => readonly DomElementLike[]) = []) {
    this.selectors = parseOrThrow(AllowSelectorsSchema, [...selectors], 'allowed selectors', 'invalid_allow_selectors');
    for (const selector of this.selectors) queryAll(root, selector);
    this.#root = root;
    this.#exclude = typeof exclude === 'function' ? exclude : () => exclude;
  }

  /** Whether `element` is excluded: an excluded element or inside one. */
  excluded(element: DomElementLike): boolean {
    return this.#exclude().some((excluded) => excluded === element || excluded.contains(element));
  }

  /** The allowed subtrees now, outermost only, in no particular order. */
  #roots(): DomElementLike[] {
    const found = new Set<DomElementLike>();
    for (const selector of this.selectors) for (const element of queryAll(this.#root, selector)) if (!this.excluded(element)) found.add(element);
    const all = [...found];
    return all.filter((element) => !all.some((other) => other !== element && other.contains(element)));
  }

  /** The allowed subtrees now, in document order; one inside another counts once. */
  subtrees(): DomElementLike[] {
    const outermost = this.#roots();
    if (outermost.length < 2) return outermost;
    const order = queryAll(this.#root, '*');
    const position = new Map(order.map((element, index) => [element, index]));
    return outermost.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
  }

  /** Whether `element` is inside an allowed subtree and not excluded. */
  allows(element: DomElementLike): boolean {
    return !this.excluded(element) && this.#roots().some((subtree) => subtree.contains(element));
  }

  /** The allowed subtree holding `element`. */
  subtreeOf(element: DomElementLike): DomElementLike | undefined {
    return this.#roots().find((subtree) => subtree.contains(element));
  }

  /**
   * The elements `selector` matches that the page allows, in document order. Throws
   * `ValidationError` `invalid_selector`, `PolicyViolationError` `outside_allow_list` when it
   * matches only elements outside the allowed subtrees, `NotFoundError` `element_not_found`
   * when it matches nothing.
   */
  resolveAll(selector: string): DomElementLike[] {
    const valid = parseOrThrow(DomSelectorSchema, selector, 'selector', 'invalid_selector');
    const matched = queryAll(this.#root, valid);
    const roots = this.#roots();
    const allowed = matched.filter((element) => !this.excluded(element) && roots.some((subtree) => subtree.contains(element)));
    if (allowed.length > 0) return allowed;
    if (matched.length > 0) {
      throw new PolicyViolationError(`"${valid}" is outside what this page allows the agent to see (${this.selectors.join(', ')})`, {
        code: 'outside_allow_list',
        details: { selector: valid, allowed: [...this.selectors] },
      });
    }
    throw new NotFoundError(`no element matches "${valid}"`, { code: 'element_not_found', details: { selector: valid } });
  }

  /** The first allowed element `selector` matches, and how many allowed elements it matches. */
  resolve(selector: string): { element: DomElementLike; matches: number } {
    const all = this.resolveAll(selector);
    return { element: all[0]!, matches: all.length };
  }
}

/**
 * Refuse (`PolicyViolationError` `origin_not_allowed`) when `target` — a link, a form's
 * action — resolves outside the allowed origins; `pageUrl` is the base for relative targets.
 */
export function checkTargetOrigin(target: string, pageUrl: string, allowOrigins: readonly string[]): void {
  let origin: string;
  try {
    const url = new URL(target, pageUrl);
    origin = /^https?:$/.test(url.protocol) ? url.origin : url.protocol;
  } catch (cause) {
    throw new ValidationError(`"${target}" is not a URL`, { code: 'invalid_url', cause });
  }
  if (!allowOrigins.includes(origin)) {
    throw new PolicyViolationError(`the action would go to ${origin}, which this page does not allow (${allowOrigins.join(', ') || 'none'})`, {
      code: 'origin_not_allowed',
      details: { origin, allowed: [...allowOrigins] },
    });
  }
}
