import { collapseWhitespace, cssString, isElement, isHiddenElement, TEXT_NODE, type DomElementLike } from './domNodes.ts';
import { lookupTable } from '../../lookupTable.ts';

/** Implicit ARIA roles of HTML elements (HTML-AAM), for the elements a page's forms and text use. */
const TAG_ROLES: Record<string, string> = lookupTable({
  ARTICLE: 'article',
  ASIDE: 'complementary',
  BUTTON: 'button',
  DIALOG: 'dialog',
  DD: 'definition',
  DT: 'term',
  FIELDSET: 'group',
  FORM: 'form',
  H1: 'heading',
  H2: 'heading',
  H3: 'heading',
  H4: 'heading',
  H5: 'heading',
  H6: 'heading',
  HR: 'separator',
  LI: 'listitem',
  MAIN: 'main',
  NAV: 'navigation',
  OL: 'list',
  UL: 'list',
  OPTION: 'option',
  OPTGROUP: 'group',
  OUTPUT: 'status',
  P: 'paragraph',
  PROGRESS: 'progressbar',
  TABLE: 'table',
  TR: 'row',
  TD: 'cell',
  TH: 'columnheader',
  TEXTAREA: 'textbox',
  LEGEND: 'legend',
  LABEL: 'label',
});

const INPUT_ROLES: Record<string, string> = lookupTable({
  button: 'button',
  submit: 'button',
  reset: 'button',
  image: 'button',
  checkbox: 'checkbox',
  radio: 'radio',
  range: 'slider',
  number: 'spinbutton',
  search: 'searchbox',
});

/** Roles whose accessible name comes from their content. */
const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'option', 'cell', 'columnheader', 'listitem', 'tab', 'menuitem', 'legend', 'label', 'term']);

/** Roles a DOM tool can act on (the snapshot gives them a selector). */
export const ACTIONABLE_ROLES: ReadonlySet<string> = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'slider',
  'spinbutton',
  'switch',
  'form',
]);

/** The element's role: its `role` attribute's first token, else its implicit role, else `generic`. */
export function roleOf(element: DomElementLike): string {
  const explicit = (element.getAttribute('role') ?? '').trim().split(/\s+/)[0];
  if (explicit) return explicit.toLowerCase();
  const tag = element.tagName.toUpperCase();
  if (tag === 'A' || tag === 'AREA') return element.hasAttribute('href') ? 'link' : 'generic';
  if (tag === 'INPUT') return INPUT_ROLES[(element.getAttribute('type') ?? 'text').toLowerCase()] ?? 'textbox';
  if (tag === 'SELECT') return element.hasAttribute('multiple') || Number(element.getAttribute('size') ?? '1') > 1 ? 'listbox' : 'combobox';
  if (tag === 'IMG') return element.getAttribute('alt') === '' ? 'presentation' : 'img';
  if (tag === 'SECTION') return element.hasAttribute('aria-label') || element.hasAttribute('aria-labelledby') ? 'region' : 'generic';
  return TAG_ROLES[tag] ?? 'generic';
}

/** The heading level of `h1`…`h6` (or `aria-level`). */
export function headingLevel(element: DomElementLike): number | undefined {
  const aria = Number(element.getAttribute('aria-level'));
  if (Number.isInteger(aria) && aria > 0) return aria;
  const match = /^H([1-6])$/.exec(element.tagName.toUpperCase());
  return match ? Number(match[1]) : undefined;
}

const CONTROLS = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON']);

/** The visible text of `element`, skipping hidden parts and (inside labels) the controls they label. */
export function contentText(element: DomElementLike, skipControls = false): string {
  const parts: string[] = [];
  const visit = (node: DomElementLike): void => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === TEXT_NODE) parts.push(child.textContent ?? '');
      else if (isElement(child) && !isHiddenElement(child) && !(skipControls && CONTROLS.has(child.tagName.toUpperCase()))) {
        if (child.tagName.toUpperCase() === 'IMG') parts.push(child.getAttribute('alt') ?? '');
        else visit(child);
      }
    }
  };
  visit(element);
  return collapseWhitespace(parts.join(' '));
}

function labelledBy(element: DomElementLike): string | undefined {
  const ids = (element.getAttribute('aria-labelledby') ?? '').trim();
  const owner = element.ownerDocument;
  if (!ids || !owner) return undefined;
  const text = ids
    .split(/\s+/)
    .map((id) => owner.getElementById(id))
    .filter((found): found is DomElementLike => found !== null)
    .map((found) => contentText(found))
    .join(' ');
  return collapseWhitespace(text) || undefined;
}

function labelText(element: DomElementLike): string | undefined {
  const texts: string[] = [];
  const owner = element.ownerDocument;
  if (element.id && owner) for (const label of Array.from(owner.querySelectorAll(`label[for=${cssString(element.id)}]`))) texts.push(contentText(label, true));
  const wrapping = element.parentElement?.closest('label');
  if (wrapping && !wrapping.hasAttribute('for')) texts.push(contentText(wrapping, true));
  return collapseWhitespace(texts.join(' ')) || undefined;
}

/**
 * The element's accessible name, by the rules of accname-1.2 that markup decides: `aria-labelledby`,
 * `aria-label`, labels of form controls, `alt`, a button input's value, content for roles named
 * by their content, then `title` and `placeholder`. Empty when it has none.
 */
export function accessibleName(element: DomElementLike, role: string = roleOf(element)): string {
  const byReference = labelledBy(element);
  if (byReference) return byReference;
  const aria = collapseWhitespace(element.getAttribute('aria-label') ?? '');
  if (aria) return aria;
  const tag = element.tagName.toUpperCase();
  if (CONTROLS.has(tag) || tag === 'OUTPUT') {
    const label = labelText(element);
    if (label) return label;
  }
  if (tag === 'INPUT') {
    const type = (element.getAttribute('type') ?? '').toLowerCase();
    if (type === 'submit' || type === 'reset' || type === 'button') {
      return collapseWhitespace(element.getAttribute('value') ?? '') || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
    }
    if (type === 'image') return collapseWhitespace(element.getAttribute('alt') ?? '') || 'Submit';
  }
  if (tag === 'IMG' || tag === 'AREA') return collapseWhitespace(element.getAttribute('alt') ?? '');
  if (tag === 'FIELDSET') {
    const legend = Array.from(element.children).find((child) => child.tagName.toUpperCase() === 'LEGEND');
    if (legend) return contentText(legend);
  }
  if (NAME_FROM_CONTENT.has(role)) {
    const text = contentText(element);
    if (text) return text;
  }
  return collapseWhitespace(element.getAttribute('title') ?? '') || collapseWhitespace(element.getAttribute('placeholder') ?? '');
}
