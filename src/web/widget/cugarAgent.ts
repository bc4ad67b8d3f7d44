// <cugar-agent>: a CUGAr run box for any web page. Shadow DOM keeps its markup and styles
// apart from the host page; CSS custom properties theme it; results are DOM CustomEvents.
//
//   <script src="cugar-agent.iife.js"></script>
//   <cugar-agent mode="remote" api="https://agents.example" token="…" profile="demo"></cugar-agent>
//
// Events (bubbling, composed): `cugar-result` (detail: the run), `cugar-approval` (the run is
// paused for a person; detail: the run), `cugar-error` (detail: { code, message }).

interface Outcome {
  runId: string;
  status: string;
  outputs: Record<string, unknown>;
  error?: { code: string; message: string };
  pendingApproval?: { approvalId: string; tool: string };
}

const STYLE = `
:host { display: block; font: var(--cugar-font, 15px/1.5 system-ui, sans-serif); color: var(--cugar-fg, #1b1f24); }
.box { border: 1px solid var(--cugar-border, #d5dbe1); border-radius: var(--cugar-radius, 8px); padding: 0.75rem; background: var(--cugar-bg, #fff); }
form { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; }
label { display: flex; flex-direction: column; flex: 1 1 14rem; gap: 0.2rem; }
input { font: inherit; padding: 0.4rem 0.5rem; border: 1px solid #8c959f; border-radius: 6px; }
button { font: inherit; padding: 0.4rem 0.9rem; border-radius: 6px; border: 1px solid var(--cugar-accent, #0b57d0); background: var(--cugar-accent, #0b57d0); color: var(--cugar-on-accent, #fff); cursor: pointer; }
button:disabled { opacity: 0.6; }
:focus-visible { outline: 3px solid var(--cugar-accent, #0b57d0); outline-offset: 2px; }
output { display: block; margin-top: 0.5rem; white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 0.9em; }
.failed { color: var(--cugar-error, #b3261e); }
`;

type LocalFetch = (path: string, init: RequestInit) => Promise<Response>;

export class CugarAgent extends HTMLElement {
  static observedAttributes = ['mode', 'profile', 'api', 'token', 'label'];
  #root: ShadowRoot;
  #input!: HTMLInputElement;
  #button!: HTMLButtonElement;
  #output!: HTMLOutputElement;
  #local: Promise<{ fetch: LocalFetch; token: string }> | undefined;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
  }

  connectedCallback(): void {
    if (this.#input) return;
    const id = `goal-${Math.random().toString(36).slice(2)}`;
    this.#root.innerHTML = `<style>${STYLE}</style><div class="box" part="box"><form part="form"><label for="${id}"><span></span><input id="${id}" part="input" autocomplete="off" required></label><button part="button" type="submit">Run</button></form><output part="result" aria-live="polite"></output></div>`;
    this.#input = this.#root.querySelector('input')!;
    this.#button = this.#root.querySelector('button')!;
    this.#output = this.#root.querySelector('output')!;
    this.#root.querySelector('label span')!.textContent = this.getAttribute('label') ?? 'Goal';
    this.#root.querySelector('form')!.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.run(this.#input.value);
    });
  }

  attributeChangedCallback(name: string): void {
    if (name === 'label' && this.#root.querySelector('label span')) this.#root.querySelector('label span')!.textContent = this.getAttribute('label') ?? 'Goal';
    if (name === 'mode') this.#local = undefined;
  }

  /** Run `goal`; resolves to the run, and dispatches the matching event. */
  async run(goal: string): Promise<Outcome | undefined> {
    if (!goal.trim()) return undefined;
    this.#button.disabled = true;
    this.#output.className = '';
    this.#output.textContent = 'Running…';
    try {
      const outcome = await this.#request<Outcome>('/v1/runs', { goal, profile: this.getAttribute('profile') ?? 'demo' });
      this.#output.className = outcome.status === 'failed' ? 'failed' : '';
      this.#output.textContent =
        outcome.status === 'paused'
          ? `Waiting for approval of ${outcome.pendingApproval?.tool}`
          : outcome.error
            ? `${outcome.error.code}: ${outcome.error.message}`
            : Object.values(outcome.outputs)
                .map((value) => (typeof value === 'string' ? value : JSON.stringify(value)))
                .join('\n');
      this.dispatchEvent(new CustomEvent(outcome.status === 'paused' ? 'cugar-approval' : 'cugar-result', { detail: outcome, bubbles: true, composed: true }));
      return outcome;
    } catch (error) {
      const detail = { code: (error as { code?: string }).code ?? 'error', message: (error as Error).message };
      this.#output.className = 'failed';
      this.#output.textContent = detail.message;
      this.dispatchEvent(new CustomEvent('cugar-error', { detail, bubbles: true, composed: true }));
      return undefined;
    } finally {
      this.#button.disabled = false;
    }
  }

  async #request<T>(path: string, body: unknown): Promise<T> {
    const init = (token: string): RequestInit => ({ method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    let response: Response;
    if (this.getAttribute('mode') === 'local') {
      // The whole runtime in this page, over IndexedDB: loaded the first time it is needed.
      this.#local ??= import('../dashboard/localApi.ts').then((m) => ({ fetch: m.localFetch, token: m.LOCAL_TOKEN }));
      const local = await this.#local;
      response = await local.fetch(path, init(local.token));
    } else {
      const base = (this.getAttribute('api') ?? '').replace(/\/$/, '');
      response = await fetch(`${base}${path}`, init(this.getAttribute('token') ?? ''));
    }
    const payload = (await response.json().catch(() => ({}))) as T & { error?: { code: string; message: string } };
    if (!response.ok) throw Object.assign(new Error(payload.error?.message ?? `HTTP ${response.status}`), { code: payload.error?.code ?? `http_${response.status}` });
    return payload;
  }
}

if (!customElements.get('cugar-agent')) customElements.define('cugar-agent', CugarAgent);
