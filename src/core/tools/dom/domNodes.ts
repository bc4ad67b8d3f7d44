/**
 * The few DOM members the DOM tools read, as structural types: a browser's live DOM and
 * linkedom's both satisfy them, so the core needs no DOM library and no host global.
 */

/** A node: an element, a text node (3) or anything else (skipped). */
export interface DomNodeLike {
  readonly nodeType: number;
  readonly textContent: string | null;
}

/** An element, with the live form-control properties a browser keeps apart from attributes. */
export interface DomElementLike extends DomNodeLike {
  readonly tagName: string;
  readonly id: string;
  readonly children: ArrayLike<DomElementLike>;
  readonly childNodes: ArrayLike<DomNodeLike>;
  readonly parentElement: DomElementLike | null;
  readonly ownerDocument: DomDocumentLike | null;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  matches(selector: string): boolean;
  closest(selector: string): DomElementLike | null;
  contains(other: DomNodeLike | null): boolean;
  querySelectorAll(selector: string): ArrayLike<DomElementLike>;
  /** Inputs, selects and text areas: the current value (a browser's property, not the attribute). */
  readonly value?: unknown;
  /** Check boxes and radio buttons: whether checked now. */
  readonly checked?: unknown;
  /** Options: whether selected now. */
  readonly selected?: unknown;
}

/** A document (or any root that can look elements up). */
export interface DomDocumentLike {
  getElementById(id: string): DomElementLike | null;
  querySelectorAll(selector: string): ArrayLike<DomElementLike>;
}

/** `Node.ELEMENT_NODE` and `Node.TEXT_NODE`, without the `Node` global. */
export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

/** Whether `node` is an element. */
export function isElement(node: DomNodeLike): node is DomElementLike {
  return node.nodeType === ELEMENT_NODE;
}

/** Elements whose subtree is never page content. */
const NEVER_CONTENT = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'HEAD', 'META', 'LINK']);

/** Whether `element` is hidden from people and assistive technology by its markup (not by CSS, which the core cannot compute). */
export function isHiddenElement(element: DomElementLike): boolean {
  if (NEVER_CONTENT.has(element.tagName.toUpperCase())) return true;
  if (element.hasAttribute('hidden') || element.getAttribute('aria-hidden') === 'true') return true;
  return element.tagName.toUpperCase() === 'INPUT' && (element.getAttribute('type') ?? '').toLowerCase() === 'hidden';
}

/** Collapse runs of white space to one space and trim. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `text` cut to `max` characters, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** A string in a CSS double-quoted string (attribute values, `label[for="…"]`). */
export function cssString(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ')}"`;
}
