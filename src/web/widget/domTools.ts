// The DOM tools on the page a <cugar-agent mode="local"> is embedded in: the element's
// `allow-selectors` (and `allow-origins`) bound what they read and do; the element itself is
// never a target. Loaded with the in-page runtime, never with the element's first load.
import {
  ConflictError,
  documentDomDriver,
  parseAllowOrigins,
  parseAllowSelectors,
  registerDomTools,
  type DomDriver,
  type DomElementLike,
  type DomPerform,
} from '../../core/index.ts';
import type { Runtime } from '../../api/runtime.ts';

/** What one profile's DOM tools may use: the element that set it, and its page's allow-lists. */
interface PageScope {
  element: HTMLElement;
  allowSelectors: string[];
  allowOrigins: string[] | undefined;
}

const scopes = new Map<string, PageScope>();
const registered = new WeakMap<Runtime, Set<string>>();

/** Every agent element of the page: none of them (nor their shadow DOM) is a target. */
const agentElements = (): DomElementLike[] => Array.from(document.querySelectorAll('cugar-agent')) as unknown as DomElementLike[];

/** Set a form control's value through its prototype's setter, as typing does, so frameworks that wrap `value` see the change. */
function setControlValue(element: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  const prototype = element instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(prototype, 'value')!.set!.call(element, value);
}

function fire(element: Element, type: 'input' | 'change'): void {
  element.dispatchEvent(new Event(type, { bubbles: true }));
}

/** Carry out a checked action with the events a person's input would fire, then give the page a turn. */
async function performOnPage(step: DomPerform): Promise<void> {
  switch (step.action) {
    case 'click':
      (step.element as unknown as HTMLElement).click();
      break;
    case 'fill': {
      const element = step.element as unknown as HTMLElement;
      element.focus();
      if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) setControlValue(element, step.value);
      else element.textContent = step.value;
      fire(element, 'input');
      fire(element, 'change');
      break;
    }
    case 'select': {
      const select = step.element as unknown as HTMLSelectElement;
      const chosen = new Set(step.options as unknown as HTMLOptionElement[]);
      for (const option of Array.from(select.options)) option.selected = chosen.has(option);
      fire(select, 'input');
      fire(select, 'change');
      break;
    }
    case 'submit':
      (step.form as unknown as HTMLFormElement).requestSubmit();
      break;
  }
  await new Promise((resolve) => setTimeout(resolve, 0));
}

/** A driver that reads the profile's page scope at each call, so an element's changed attributes apply to the next call. */
function pageDriver(profile: string): DomDriver {
  const current = (): DomDriver => {
    const scope = scopes.get(profile);
    if (!scope) throw new ConflictError(`no element of this page lets profile "${profile}" use the page`, { code: 'dom_scope_missing' });
    return documentDomDriver({
      document: document as unknown as Parameters<typeof documentDomDriver>[0]['document'],
      allowSelectors: scope.allowSelectors,
      exclude: agentElements,
      ...(scope.allowOrigins ? { allowOrigins: scope.allowOrigins } : {}),
      pageUrl: () => location.href,
      perform: performOnPage,
    });
  };
  return {
    readText: (request, signal) => current().readText(request, signal),
    snapshot: (request, signal) => current().snapshot(request, signal),
    act: (action, signal) => current().act(action, signal),
  };
}

/**
 * Register the DOM tools (`dom_read_text`, `dom_snapshot`, `dom_click`, `dom_fill`,
 * `dom_select`, `dom_submit`) in the in-page runtime for `element`'s profile, bounded by its
 * `allow-selectors` and `allow-origins` (default: this page's origin). Actions need an approval.
 * Throws `ValidationError` for a bad attribute, and `ConflictError` `dom_scope_conflict` when
 * another element of the page already gave the same profile different allow-lists.
 */
export function registerPageDomTools(runtime: Runtime, element: HTMLElement, profile: string): string[] {
  const allowSelectors = parseAllowSelectors(element.getAttribute('allow-selectors') ?? '');
  const originsAttribute = element.getAttribute('allow-origins');
  const allowOrigins = originsAttribute === null ? undefined : parseAllowOrigins(originsAttribute);
  const previous = scopes.get(profile);
  const same = (scope: PageScope) => scope.allowSelectors.join('\n') === allowSelectors.join('\n') && scope.allowOrigins?.join(' ') === allowOrigins?.join(' ');
  if (previous && previous.element !== element && previous.element.isConnected && !same(previous)) {
    throw new ConflictError(`another agent element of this page already allows profile "${profile}" other parts of the page`, {
      code: 'dom_scope_conflict',
      details: { profile },
    });
  }
  scopes.set(profile, { element, allowSelectors, allowOrigins });
  const profiles = registered.get(runtime) ?? new Set<string>();
  registered.set(runtime, profiles);
  if (profiles.has(profile))
    return runtime.registry
      .definitions(profile)
      .filter((tool) => tool.name.startsWith('dom_'))
      .map((tool) => tool.name);
  const names = registerDomTools(runtime.registry, pageDriver(profile), profile, { where: 'this page' });
  profiles.add(profile);
  return names;
}
