import { CugarError, NotFoundError, PolicyViolationError, ValidationError } from '../../errors.ts';
import { collapseWhitespace, type DomDocumentLike, type DomElementLike } from './domNodes.ts';
import { isSecretField } from './domRedaction.ts';
import { accessibleName, roleOf } from './domRoles.ts';
import { checkTargetOrigin, DomScope } from './domScope.ts';
import { readElementsText, selectorFor, selectTargets, snapshotElements, type DomSnapshot } from './domSnapshot.ts';
import type { DomAction, DomDriver } from './domTools.ts';

/** A checked action, ready for the host to carry out on the element it names. */
export type DomPerform =
  | { action: 'click'; element: DomElementLike }
  | { action: 'fill'; element: DomElementLike; value: string }
  | { action: 'select'; element: DomElementLike; options: DomElementLike[] }
  | { action: 'submit'; form: DomElementLike };

/** What {@link documentDomDriver} needs from its host. */
export interface DocumentDomDriverOptions {
  document: DomDocumentLike;
  /** The selectors the page allows (`allow-selectors`). */
  allowSelectors: readonly string[];
  /** Elements never read nor acted on (the agent's own element). */
  exclude?: readonly DomElementLike[] | (() => readonly DomElementLike[]);
  /** Origins links and forms may go to; default the page's own origin. */
  allowOrigins?: readonly string[];
  /** The page's address now. */
  pageUrl: () => string;
  /**
   * Carry out a checked action with the host's events (a browser: `input`/`change` events,
   * `requestSubmit`); resolves once the page has had a turn to react.
   */
  perform: (step: DomPerform) => Promise<void>;
}

const TEXT_INPUTS = new Set(['', 'text', 'email', 'search', 'tel', 'url', 'number', 'date', 'datetime-local', 'month', 'week', 'time', 'color', 'range']);
const SUBMITTERS = /^(button|input)$/i;

function isSubmitter(element: DomElementLike): boolean {
  if (!SUBMITTERS.test(element.tagName)) return false;
  const type = (element.getAttribute('type') ?? (element.tagName.toUpperCase() === 'BUTTON' ? 'submit' : 'text')).toLowerCase();
  return type === 'submit' || type === 'image';
}

function refuse(message: string, code: string, selector: string): never {
  throw new ValidationError(message, { code, details: { selector } });
}

/** The page's origin and path, without query or fragment (which may carry tokens). */
function journalUrl(pageUrl: string): string {
  try {
    const url = new URL(pageUrl);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '';
  }
}

/**
 * The DOM tools' driver over a live document: the widget's page in a browser (or any DOM, such
 * as linkedom's, in tests). Every read and action goes through a {@link DomScope} of the page's
 * allowed selectors; links and forms go only to the allowed origins; secret fields are neither
 * captured nor typed into. Throws the scope's typed errors, and `ValidationError`s
 * (`not_fillable`, `not_selectable`, `no_form`, `element_disabled`), `NotFoundError`
 * `option_not_found`, `PolicyViolationError` `secret_field`.
 */
export function documentDomDriver(options: DocumentDomDriverOptions): DomDriver {
  const scope = new DomScope(options.document, options.allowSelectors, options.exclude ?? []);
  const allowOrigins = (): readonly string[] => options.allowOrigins ?? [new URL(options.pageUrl()).origin];

  const snapshotAround = (subtree: DomElementLike | undefined): DomSnapshot => {
    const subtrees = scope.subtrees();
    return snapshotElements(subtree && subtrees.includes(subtree) ? [subtree] : subtrees, { scope });
  };

  // A form submits every field it holds: one reaching past the allowed subtrees is not the agent's to submit.
  const checkFormAllowed = (form: DomElementLike, selector: string): void => {
    if (!scope.allows(form))
      throw new PolicyViolationError(`the form of "${selector}" reaches outside what this page allows the agent to use`, {
        code: 'outside_allow_list',
        details: { selector, allowed: [...scope.selectors] },
      });
  };

  const check = (action: DomAction, element: DomElementLike): DomPerform => {
    const tag = element.tagName.toUpperCase();
    const origins = allowOrigins();
    if (element.hasAttribute('disabled') || element.getAttribute('aria-disabled') === 'true')
      refuse(`"${action.selector}" is disabled`, 'element_disabled', action.selector);
    switch (action.action) {
      case 'click': {
        const link = element.closest('a[href]');
        if (link) checkTargetOrigin(link.getAttribute('href')!, options.pageUrl(), origins);
        const form = isSubmitter(element) ? element.closest('form') : null;
        if (form) checkFormAllowed(form, action.selector);
        if (form) checkTargetOrigin(element.getAttribute('formaction') ?? form.getAttribute('action') ?? '', options.pageUrl(), origins);
        return { action: 'click', element };
      }
      case 'fill': {
        if (isSecretField(element))
          throw new PolicyViolationError(`"${action.selector}" is a password or other secret field: the agent never types into one`, {
            code: 'secret_field',
            details: { selector: action.selector },
          });
        const fillable =
          tag === 'TEXTAREA' ||
          (tag === 'INPUT' && TEXT_INPUTS.has((element.getAttribute('type') ?? '').toLowerCase())) ||
          element.getAttribute('contenteditable') === 'true' ||
          element.getAttribute('contenteditable') === '';
        if (!fillable) refuse(`"${action.selector}" is not a text field`, 'not_fillable', action.selector);
        if (element.hasAttribute('readonly')) refuse(`"${action.selector}" is read-only`, 'element_disabled', action.selector);
        return { action: 'fill', element, value: action.value };
      }
      case 'select': {
        if (tag !== 'SELECT') refuse(`"${action.selector}" is not a select`, 'not_selectable', action.selector);
        const wanted = Array.isArray(action.value) ? action.value : [action.value];
        if (wanted.length > 1 && !element.hasAttribute('multiple')) refuse(`"${action.selector}" takes one option`, 'not_selectable', action.selector);
        const all = Array.from(element.querySelectorAll('option'));
        const options = wanted.map((value) => {
          const option =
            all.find((candidate) => (candidate.getAttribute('value') ?? collapseWhitespace(candidate.textContent ?? '')) === value) ??
            all.find((candidate) => collapseWhitespace(candidate.textContent ?? '') === value);
          if (!option)
            throw new NotFoundError(`"${action.selector}" has no option "${value}"`, {
              code: 'option_not_found',
              details: { selector: action.selector, value },
            });
          if (option.hasAttribute('disabled')) refuse(`option "${value}" of "${action.selector}" is disabled`, 'element_disabled', action.selector);
          return option;
        });
        return { action: 'select', element, options };
      }
      case 'submit': {
        const form = tag === 'FORM' ? element : element.closest('form');
        if (!form) refuse(`"${action.selector}" is not a form nor inside one`, 'no_form', action.selector);
        checkFormAllowed(form, action.selector);
        checkTargetOrigin(form.getAttribute('action') ?? '', options.pageUrl(), origins);
        return { action: 'submit', form };
      }
    }
  };

  const aborted = (signal: AbortSignal): void => {
    if (signal.aborted) throw new CugarError('the step was cancelled before it touched the page', { code: 'cancelled', failureMode: 'USER' });
  };

  return {
    readText(request, signal) {
      aborted(signal);
      const elements = selectTargets(scope, request);
      return Promise.resolve({
        url: journalUrl(options.pageUrl()),
        ...readElementsText(elements, { scope, maxChars: request.maxChars }),
        elements: elements.length,
      });
    },
    snapshot(request, signal) {
      aborted(signal);
      return Promise.resolve({ url: journalUrl(options.pageUrl()), ...snapshotElements(selectTargets(scope, request), { scope }) });
    },
    async act(action, signal) {
      aborted(signal);
      const { element, matches } = scope.resolve(action.selector);
      const step = check(action, element);
      const subtree = scope.subtreeOf(element);
      const role = roleOf(element);
      const name = accessibleName(element, role);
      const before = snapshotAround(subtree);
      const url = journalUrl(options.pageUrl());
      await options.perform(step);
      return {
        action: action.action,
        selector: action.selector,
        url,
        target: { role, ...(name ? { name } : {}), selector: selectorFor(element) },
        matches,
        before,
        after: snapshotAround(subtree),
      };
    },
  };
}
