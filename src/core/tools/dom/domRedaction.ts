import type { DomElementLike } from './domNodes.ts';

/** `autocomplete` tokens of fields whose values are credentials or card data. */
const SECRET_AUTOCOMPLETE = new Set(['current-password', 'new-password', 'one-time-code', 'cc-number', 'cc-csc', 'cc-exp']);

/**
 * Whether the value of `element` is never captured: password inputs, fields whose
 * `autocomplete` names a credential or card data, and anything the page marks with
 * `data-cugar-redact`. Their values stay out of snapshots (and so out of journals), and the
 * DOM tools refuse to type into them, since a tool's inputs are journaled too.
 */
export function isSecretField(element: DomElementLike): boolean {
  if (element.hasAttribute('data-cugar-redact') || element.closest('[data-cugar-redact]') !== null) return true;
  const tag = element.tagName.toUpperCase();
  if (tag === 'INPUT' && (element.getAttribute('type') ?? '').toLowerCase() === 'password') return true;
  if (tag !== 'INPUT' && tag !== 'TEXTAREA') return false;
  const tokens = (element.getAttribute('autocomplete') ?? '').toLowerCase().split(/\s+/);
  return tokens.some((token) => SECRET_AUTOCOMPLETE.has(token));
}

/** The current value of a form control: the live property where there is one, else the attribute. */
export function liveValue(element: DomElementLike): string {
  if (typeof element.value === 'string') return element.value;
  return element.getAttribute('value') ?? '';
}

/** What a snapshot records of a control's value: the value, or only that there is a redacted one. */
export function capturedValue(element: DomElementLike): { value: string } | { redacted: true } | Record<string, never> {
  const value = liveValue(element);
  if (isSecretField(element)) return value === '' ? {} : { redacted: true };
  return { value };
}
