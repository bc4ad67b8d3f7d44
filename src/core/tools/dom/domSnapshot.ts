import { clip, collapseWhitespace, isElement, isHiddenElement, TEXT_NODE, type DomElementLike } from './domNodes.ts';
import { capturedValue, liveValue } from './domRedaction.ts';
import { accessibleName, ACTIONABLE_ROLES, headingLevel, roleOf } from './domRoles.ts';
import type { DomScope } from './domScope.ts';

/**
 * One node of an accessibility-tree snapshot. Elements without a role of their own (`div`,
 * `span`, labels) are flattened into their parent; text appears as `text` nodes.
 */
export interface DomSnapshotNode {
  role: string;
  name?: string;
  /** For elements a tool can act on: a selector that finds this element. */
  selector?: string;
  level?: number;
  /** A control's current value; never present for a secret field (see `redacted`). */
  value?: string;
  /** The control holds a value the snapshot does not capture (passwords and other secret fields). */
  redacted?: true;
  checked?: boolean;
  selected?: boolean;
  disabled?: true;
  required?: true;
  children?: DomSnapshotNode[];
}

/** Bounds of one snapshot or text read. */
export interface DomSnapshotLimits {
  /** Most nodes in one snapshot. Default 400. */
  maxNodes: number;
  /** Most characters of one name, value or text node. Default 200. */
  maxText: number;
}

export const DEFAULT_SNAPSHOT_LIMITS: DomSnapshotLimits = { maxNodes: 400, maxText: 200 };

const FLATTENED = new Set(['generic', 'presentation', 'none', 'label']);
/** Roles whose name already says their text: their text children are not repeated. */
const TEXT_IN_NAME = new Set(['button', 'link', 'heading', 'option', 'legend', 'cell', 'columnheader', 'listitem']);
const SAFE_ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A selector that finds `element`: `#id` when it has a plain id, else a `:nth-of-type` path from the nearest such ancestor. */
export function selectorFor(element: DomElementLike): string {
  const steps: string[] = [];
  let current: DomElementLike | null = element;
  while (current) {
    if (current.id && SAFE_ID.test(current.id)) {
      steps.unshift(`#${current.id}`);
      break;
    }
    const tag = current.tagName.toLowerCase();
    const parent: DomElementLike | null = current.parentElement;
    if (!parent) {
      steps.unshift(tag);
      break;
    }
    const same = Array.from(parent.children).filter((child) => child.tagName === current!.tagName);
    steps.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(current) + 1})` : tag);
    current = parent;
  }
  return steps.join(' > ');
}

function isChecked(element: DomElementLike): boolean {
  if (typeof element.checked === 'boolean') return element.checked;
  return element.hasAttribute('checked') || element.getAttribute('aria-checked') === 'true';
}

function isSelected(element: DomElementLike): boolean {
  if (typeof element.selected === 'boolean') return element.selected;
  return element.hasAttribute('selected') || element.getAttribute('aria-selected') === 'true';
}

/** Builds snapshots within one scope, counting nodes against the limits. */
class SnapshotBuilder {
  count = 0;
  truncated = false;
  constructor(
    readonly limits: DomSnapshotLimits,
    readonly scope: DomScope | undefined,
  ) {}

  node(element: DomElementLike): DomSnapshotNode[] {
    if (isHiddenElement(element) || this.scope?.excluded(element)) return [];
    if (this.count >= this.limits.maxNodes) {
      this.truncated = true;
      return [];
    }
    const role = roleOf(element);
    if (FLATTENED.has(role)) return this.children(element, false);
    this.count++;
    const node: DomSnapshotNode = { role };
    const name = accessibleName(element, role);
    if (name) node.name = clip(name, this.limits.maxText);
    if (ACTIONABLE_ROLES.has(role)) node.selector = selectorFor(element);
    const level = role === 'heading' ? headingLevel(element) : undefined;
    if (level !== undefined) node.level = level;
    this.state(element, role, node);
    const children = this.children(element, TEXT_IN_NAME.has(role));
    if (children.length > 0) node.children = children;
    return [node];
  }

  state(element: DomElementLike, role: string, node: DomSnapshotNode): void {
    const tag = element.tagName.toUpperCase();
    if (role === 'checkbox' || role === 'radio' || role === 'switch') node.checked = isChecked(element);
    else if (role === 'option') node.selected = isSelected(element);
    else if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') {
      const captured = capturedValue(element);
      if ('value' in captured) node.value = clip(captured.value, this.limits.maxText);
      else if ('redacted' in captured) node.redacted = true;
    }
    if (element.hasAttribute('disabled') || element.getAttribute('aria-disabled') === 'true') node.disabled = true;
    if (element.hasAttribute('required') || element.getAttribute('aria-required') === 'true') node.required = true;
  }

  children(element: DomElementLike, skipText: boolean): DomSnapshotNode[] {
    const out: DomSnapshotNode[] = [];
    // A text area's content is its value, already captured (and redacted where it must be).
    if (element.tagName.toUpperCase() === 'TEXTAREA') return out;
    for (const child of Array.from(element.childNodes)) {
      if (child.nodeType === TEXT_NODE) {
        const text = collapseWhitespace(child.textContent ?? '');
        if (!text || skipText) continue;
        if (this.count >= this.limits.maxNodes) {
          this.truncated = true;
          break;
        }
        this.count++;
        out.push({ role: 'text', name: clip(text, this.limits.maxText) });
      } else if (isElement(child)) out.push(...this.node(child));
    }
    return out;
  }
}

/** A snapshot of one or more elements: their nodes and whether a limit cut it short. */
export interface DomSnapshot {
  nodes: DomSnapshotNode[];
  truncated: boolean;
}

/**
 * The accessibility-tree snapshot of `elements`, each with its subtree. Elements of `scope`'s
 * exclusions are left out; secret fields appear with `redacted: true` and no value.
 *
 * @example
 * snapshotElements([document.querySelector('form')!]).nodes[0]; // { role: 'form', children: [...] }
 */
export function snapshotElements(elements: readonly DomElementLike[], options: { scope?: DomScope; limits?: Partial<DomSnapshotLimits> } = {}): DomSnapshot {
  const builder = new SnapshotBuilder({ ...DEFAULT_SNAPSHOT_LIMITS, ...options.limits }, options.scope);
  const nodes = elements.flatMap((element) => builder.node(element));
  return { nodes, truncated: builder.truncated };
}

function hiddenByAncestor(element: DomElementLike): boolean {
  for (let current: DomElementLike | null = element; current; current = current.parentElement) if (isHiddenElement(current)) return true;
  return false;
}

/**
 * The allowed elements a read names: those `selector` matches, the elements of `role` (within
 * `selector`'s matches when both are given), or every allowed subtree when neither is. Hidden
 * elements are left out. Throws as {@link DomScope.resolveAll} does.
 */
export function selectTargets(scope: DomScope, request: { selector?: string | undefined; role?: string | undefined }, max = 50): DomElementLike[] {
  const bases = request.selector === undefined ? scope.subtrees() : scope.resolveAll(request.selector);
  const visible = bases.filter((element) => !hiddenByAncestor(element));
  if (request.role === undefined) return visible.slice(0, max);
  const role = request.role.toLowerCase();
  const found: DomElementLike[] = [];
  for (const base of visible) {
    for (const element of [base, ...Array.from(base.querySelectorAll('*'))]) {
      if (found.length >= max) return found;
      // Descendants of an allowed element are allowed unless excluded.
      if (roleOf(element) !== role || scope.excluded(element) || hiddenByAncestor(element)) continue;
      if (found.some((outer) => outer.contains(element))) continue;
      found.push(element);
    }
  }
  return found;
}

const BLOCK =
  /^(ADDRESS|ARTICLE|ASIDE|BLOCKQUOTE|BR|DD|DIV|DL|DT|FIELDSET|FIGCAPTION|FIGURE|FOOTER|FORM|H[1-6]|HEADER|HR|LI|MAIN|NAV|OL|OUTPUT|P|PRE|SECTION|TABLE|TR|UL|LABEL|LEGEND|OPTION|SELECT)$/;

/** The visible text of `elements`, a line per block, at most `maxChars` characters (cut with `truncated`). */
export function readElementsText(
  elements: readonly DomElementLike[],
  options: { scope?: DomScope; maxChars?: number } = {},
): { text: string; truncated: boolean } {
  const maxChars = options.maxChars ?? 20_000;
  const lines: string[] = [];
  let line = '';
  const flush = (): void => {
    const text = collapseWhitespace(line);
    if (text) lines.push(text);
    line = '';
  };
  const visit = (element: DomElementLike): void => {
    if (isHiddenElement(element) || options.scope?.excluded(element)) return;
    const block = BLOCK.test(element.tagName.toUpperCase());
    if (block) flush();
    const tag = element.tagName.toUpperCase();
    if (tag === 'INPUT' && ['submit', 'button', 'reset'].includes((element.getAttribute('type') ?? '').toLowerCase())) line += ` ${liveValue(element)} `;
    for (const child of Array.from(element.childNodes)) {
      if (child.nodeType === TEXT_NODE) line += child.textContent ?? '';
      else if (isElement(child)) visit(child);
    }
    if (block) flush();
  };
  for (const element of elements) visit(element);
  flush();
  const text = lines.join('\n');
  return text.length > maxChars ? { text: text.slice(0, maxChars), truncated: true } : { text, truncated: false };
}
