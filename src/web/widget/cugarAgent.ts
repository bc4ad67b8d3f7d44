// <cugar-agent>: a CUGAr run box for any web page. Shadow DOM keeps its markup and styles
// apart from the host page; CSS custom properties theme it; results are DOM CustomEvents.
//
//   <script src="cugar-agent.iife.js"></script>
//   <cugar-agent mode="remote" api="https://agents.example" token="…" profile="demo"></cugar-agent>
//
// Events (bubbling, composed): `cugar-result` (detail: the run), `cugar-approval` (the run is
// paused for a person; detail: the run), `cugar-error` (detail: { code, message }).
//
// The API accepts a run at once (202) and the element follows its event stream to the end. A
// run paused for a person stays followed: once someone decides (in the dashboard's inbox, the
// CLI, or here), the element shows where the run ended. It offers Approve and Reject only where
// the embedding page says the person at it may decide (`allow-approve`), and otherwise links to
// the inbox (`inbox`, default the server's dashboard inbox in remote mode).
//
// In local mode, `allow-selectors="form#signup, #search"` gives the in-page agent DOM tools on
// this page, inside those subtrees only (`allow-origins` bounds where links and forms may go;
// default this page's origin); each action waits for an approval. Remote runs never see the page.

import type * as Api from '../../api/client.ts';
import type { ApiClient, RunOutcome } from '../../api/client.ts';

// The typed client (Hono's `hc` and the event-stream reader) loads with the first run, as the
// in-page runtime does, so the element a page embeds stays a couple of KB.
let clientModule: Promise<typeof Api> | undefined;
const loadClient = () => (clientModule ??= import('../../api/client.ts'));

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
.decide { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin-top: 0.5rem; }
.decide[hidden] { display: none; }
.decide button.reject { background: transparent; color: var(--cugar-accent, #0b57d0); }
a { color: var(--cugar-accent, #0b57d0); }
.failed { color: var(--cugar-error, #b3261e); }
`;

type LocalFetch = (path: string, init: RequestInit) => Promise<Response>;

export class CugarAgent extends HTMLElement {
  static observedAttributes = ['mode', 'profile', 'api', 'token', 'label', 'allow-approve', 'inbox', 'allow-selectors', 'allow-origins'];
  #root: ShadowRoot;
  #input!: HTMLInputElement;
  #button!: HTMLButtonElement;
  #output!: HTMLOutputElement;
  #decide!: HTMLDivElement;
  /** The run this element follows; a new run lets go of the one before (which goes on, elsewhere). */
  #following: AbortController | undefined;
  #local: Promise<{ fetch: LocalFetch; token: string }> | undefined;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
  }

  connectedCallback(): void {
    if (this.#input) return;
    const id = `goal-${Math.random().toString(36).slice(2)}`;
    this.#root.innerHTML = `<style>${STYLE}</style><div class="box" part="box"><form part="form"><label for="${id}"><span></span><input id="${id}" part="input" autocomplete="off" required></label><button part="button" type="submit">Run</button></form><output part="result" aria-live="polite"></output><div class="decide" part="approval" hidden></div></div>`;
    this.#input = this.#root.querySelector('input')!;
    this.#button = this.#root.querySelector('button')!;
    this.#output = this.#root.querySelector('output')!;
    this.#decide = this.#root.querySelector('.decide')!;
    this.#root.querySelector('label span')!.textContent = this.getAttribute('label') ?? 'Goal';
    this.#root.querySelector('form')!.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.run(this.#input.value);
    });
  }

  attributeChangedCallback(name: string): void {
    if (name === 'label' && this.#root.querySelector('label span')) this.#root.querySelector('label span')!.textContent = this.getAttribute('label') ?? 'Goal';
    if (name === 'mode' || name === 'profile' || name === 'allow-selectors' || name === 'allow-origins') this.#local = undefined;
  }

  /**
   * Run `goal`; resolves to the run once it completes, fails or is cancelled, and dispatches the
   * matching event. A pause for a person dispatches `cugar-approval` and waits for the decision.
   */
  async run(goal: string): Promise<RunOutcome | undefined> {
    if (!goal.trim()) return undefined;
    this.#following?.abort();
    const following = (this.#following = new AbortController());
    const signal = following.signal;
    this.#button.disabled = true;
    this.#output.className = '';
    this.#output.textContent = 'Running…';
    this.#decide.hidden = true;
    try {
      const { followRun, unwrap } = await loadClient();
      const client = await this.#client();
      const answer = await unwrap(client.v1.runs.$post({ json: { goal, profile: this.getAttribute('profile') ?? 'demo' }, query: {}, header: {} }));
      let outcome = 'links' in answer ? await followRun(client, answer.runId) : answer;
      let announced = -1;
      while (outcome.status === 'paused') {
        // While it waits, the person may run something else (and this run is let go).
        this.#button.disabled = false;
        if (outcome.head.seq !== announced) {
          announced = outcome.head.seq;
          this.#paused(client, outcome);
          this.dispatchEvent(new CustomEvent('cugar-approval', { detail: outcome, bubbles: true, composed: true }));
        } else await new Promise((resolve) => setTimeout(resolve, 1000));
        // Someone decides here, in the inbox or elsewhere: the run's events say so.
        outcome = await followRun(client, outcome.runId, { after: outcome.head.seq, signal });
      }
      this.#decide.hidden = true;
      this.#output.className = outcome.status === 'failed' ? 'failed' : '';
      this.#output.textContent = outcome.error
        ? `${outcome.error.code}: ${outcome.error.message}`
        : Object.values(outcome.outputs)
            .map((value) => (typeof value === 'string' ? value : JSON.stringify(value)))
            .join('\n');
      this.dispatchEvent(new CustomEvent('cugar-result', { detail: outcome, bubbles: true, composed: true }));
      return outcome;
    } catch (error) {
      if (signal.aborted) return undefined;
      const detail = { code: (error as { code?: string }).code ?? 'error', message: (error as Error).message };
      this.#decide.hidden = true;
      this.#output.className = 'failed';
      this.#output.textContent = detail.message;
      this.dispatchEvent(new CustomEvent('cugar-error', { detail, bubbles: true, composed: true }));
      return undefined;
    } finally {
      if (!signal.aborted) this.#button.disabled = false;
    }
  }

  /**
   * The journal of run `runId` as the API this element uses (the in-page runtime or the server)
   * exports it: redacted, hash-chained, verifiable on its own.
   */
  async journal(runId: string): Promise<unknown[]> {
    const { unwrap } = await loadClient();
    const client = await this.#client();
    const body: unknown = await unwrap(client.v1.runs[':runId'].journal.$get({ param: { runId: encodeURIComponent(runId) }, query: {} }));
    return (body as { events: unknown[] }).events;
  }

  /** Say what the run waits for, and offer the decision (where the page allows it) or the inbox. */
  #paused(client: ApiClient, outcome: RunOutcome): void {
    const approval = outcome.pendingApproval;
    this.#output.className = '';
    this.#output.textContent = `Waiting for approval of ${approval?.tool ?? 'a step'}${approval ? ` ${JSON.stringify(approval.args)}` : ''}`;
    this.#decide.replaceChildren();
    if (approval && this.hasAttribute('allow-approve')) {
      for (const decision of ['approve', 'reject'] as const) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = decision;
        button.textContent = decision === 'approve' ? 'Approve' : 'Reject';
        button.addEventListener('click', () => {
          for (const b of this.#decide.querySelectorAll('button')) b.disabled = true;
          void loadClient()
            .then(({ unwrap }) =>
              unwrap(
                client.v1.approvals[':approvalId'].$post({
                  param: { approvalId: encodeURIComponent(approval.approvalId) },
                  json: { decision, reason: `${decision === 'approve' ? 'approved' : 'rejected'} in the page` },
                }),
              ),
            )
            .catch((error: unknown) => {
              this.#output.className = 'failed';
              this.#output.textContent = (error as Error).message;
              for (const b of this.#decide.querySelectorAll('button')) b.disabled = false;
            });
        });
        this.#decide.append(button);
      }
    } else {
      const inbox = this.getAttribute('inbox') ?? (this.getAttribute('mode') === 'local' ? null : `${this.getAttribute('api') ?? ''}/#/approvals`);
      if (inbox) {
        const link = document.createElement('a');
        link.href = inbox;
        link.target = '_blank';
        link.rel = 'noopener';
        link.textContent = 'Open the approvals inbox';
        this.#decide.append(link);
      }
    }
    this.#decide.hidden = this.#decide.childElementCount === 0;
  }

  async #client(): Promise<ApiClient> {
    const { createClient } = await loadClient();
    if (this.getAttribute('mode') === 'local') {
      // The whole runtime in this page, over IndexedDB: loaded the first time it is needed.
      // With `allow-selectors`, the page's DOM tools load with it, bounded by that allow-list.
      // (After the runtime's module: its API schemas must be set up before the core they share.)
      this.#local ??= import('../dashboard/localApi.ts').then(async (m) => {
        if (this.hasAttribute('allow-selectors')) {
          const dom = await import('./domTools.ts');
          const profile = this.getAttribute('profile') ?? 'demo';
          await m.extendLocalRuntime((runtime) => dom.registerPageDomTools(runtime, this, profile));
        }
        return { fetch: m.localFetch, token: m.LOCAL_TOKEN };
      });
      const local = await this.#local.catch((error: unknown) => {
        this.#local = undefined;
        throw error;
      });
      return createClient({ token: local.token, fetch: local.fetch });
    }
    return createClient({ baseUrl: this.getAttribute('api') ?? '', token: this.getAttribute('token') ?? '' });
  }
}

if (!customElements.get('cugar-agent')) customElements.define('cugar-agent', CugarAgent);
