import { describe, expect, it } from 'vitest';
import {
  DomScope,
  ToolRegistry,
  documentDomDriver,
  parseAllowOrigins,
  parseAllowSelectors,
  readElementsText,
  registerDomTools,
  selectTargets,
  snapshotElements,
  type DomDocumentLike,
  type DomPerform,
  type DomSnapshotNode,
} from '../../src/core/index.ts';

// The same pure code over Chromium's own DOM and, on Node, linkedom's.
async function parse(html: string): Promise<DomDocumentLike> {
  if (typeof DOMParser !== 'undefined') return new DOMParser().parseFromString(html, 'text/html') as unknown as DomDocumentLike;
  const { parseHTML } = await import('linkedom');
  return parseHTML(html).document as unknown as DomDocumentLike;
}

const PAGE = `<!doctype html><html><head><title>t</title><style>p{}</style></head><body>
<nav><a href="/home">Home</a></nav>
<form id="signup" action="/done">
  <h2>Join</h2>
  <label>Name <input id="name" name="name" value="Ana" required></label>
  <label for="mail">Email</label><input id="mail" type="email" placeholder="you@example.com">
  <label>Password <input id="pw" type="password" value="hunter2"></label>
  <input id="otp" autocomplete="one-time-code" value="123456" aria-label="Code">
  <label>Plan <select id="plan"><option value="free">Free</option><option value="team" selected>Team</option></select></label>
  <label><input id="terms" type="checkbox" checked> Terms</label>
  <div hidden><input id="ghost" value="boo"></div>
  <script>var secret = 1;</script>
  <div><span>Plain</span> text</div>
  <button type="submit">Sign up</button>
  <button type="button" disabled>Later</button>
  <a href="https://elsewhere.example/x">Away</a>
</form>
<section id="outside"><p>Outside text</p><button id="out">Out</button></section>
<cugar-agent id="agent"><button id="inside-agent">Agent</button></cugar-agent>
</body></html>`;

function find(nodes: readonly DomSnapshotNode[], predicate: (node: DomSnapshotNode) => boolean): DomSnapshotNode | undefined {
  for (const node of nodes) {
    if (predicate(node)) return node;
    const inner = find(node.children ?? [], predicate);
    if (inner) return inner;
  }
  return undefined;
}

describe('DOM snapshots (accessibility tree) and the allow-list scope', () => {
  it('builds roles, names, values, states and selectors; flattens generic elements; skips hidden parts', async () => {
    const document = await parse(PAGE);
    const scope = new DomScope(document, ['form#signup']);
    const { nodes, truncated } = snapshotElements(scope.subtrees(), { scope });
    expect(truncated).toBe(false);
    expect(nodes).toHaveLength(1);
    const form = nodes[0]!;
    expect(form).toMatchObject({ role: 'form', selector: '#signup' });
    expect(find(nodes, (n) => n.role === 'heading')).toEqual({ role: 'heading', name: 'Join', level: 2 });
    expect(find(nodes, (n) => n.role === 'textbox' && n.name === 'Name')).toEqual({
      role: 'textbox',
      name: 'Name',
      selector: '#name',
      value: 'Ana',
      required: true,
    });
    expect(find(nodes, (n) => n.selector === '#mail')).toEqual({ role: 'textbox', name: 'Email', selector: '#mail', value: '' });
    expect(find(nodes, (n) => n.role === 'combobox')).toMatchObject({ name: 'Plan', value: 'team', selector: '#plan' });
    expect(find(nodes, (n) => n.role === 'combobox')!.children).toEqual([
      { role: 'option', name: 'Free', selected: false },
      { role: 'option', name: 'Team', selected: true },
    ]);
    expect(find(nodes, (n) => n.role === 'checkbox')).toEqual({ role: 'checkbox', name: 'Terms', selector: '#terms', checked: true });
    expect(find(nodes, (n) => n.role === 'button' && n.name === 'Sign up')).toMatchObject({ selector: expect.stringContaining('button') as unknown });
    expect(find(nodes, (n) => n.role === 'button' && n.name === 'Later')).toMatchObject({ disabled: true });
    expect(find(nodes, (n) => n.role === 'link')).toMatchObject({ name: 'Away' });
    // <div>s and <span>s add no node; their text does.
    expect(find(nodes, (n) => n.role === 'generic')).toBeUndefined();
    expect(find(nodes, (n) => n.role === 'text' && n.name === 'Plain')).toBeDefined();
    const json = JSON.stringify(nodes);
    expect(json).not.toContain('boo');
    expect(json).not.toContain('secret');
    expect(json).not.toContain('Outside text');
  });

  it('never captures the values of password and other secret fields', async () => {
    const document = await parse(PAGE);
    const scope = new DomScope(document, ['form#signup']);
    const { nodes } = snapshotElements(scope.subtrees(), { scope });
    expect(find(nodes, (n) => n.selector === '#pw')).toEqual({ role: 'textbox', name: 'Password', selector: '#pw', redacted: true });
    expect(find(nodes, (n) => n.selector === '#otp')).toEqual({ role: 'textbox', name: 'Code', selector: '#otp', redacted: true });
    const json = JSON.stringify(nodes);
    expect(json).not.toContain('hunter2');
    expect(json).not.toContain('123456');
  });

  it('selects by selector or role within the allowed subtrees only, and reads text a line per block', async () => {
    const document = await parse(PAGE);
    const scope = new DomScope(document, parseAllowSelectors('form#signup, #outside'));
    expect(selectTargets(scope, { role: 'button' }).map((el) => el.textContent)).toEqual(['Sign up', 'Later', 'Out']);
    expect(selectTargets(scope, { selector: '#signup', role: 'checkbox' }).map((el) => el.id)).toEqual(['terms']);
    const { text } = readElementsText(selectTargets(scope, { selector: '#outside' }), { scope });
    expect(text).toBe('Outside text\nOut');
    expect(readElementsText(scope.subtrees(), { scope, maxChars: 10 })).toEqual({ text: 'Join\nName\n', truncated: true });
    // The nav and the agent element are not allowed: neither by selector nor by role.
    expect(() => selectTargets(scope, { selector: 'nav a' })).toThrow(expect.objectContaining({ code: 'outside_allow_list' }) as Error);
    expect(() => selectTargets(scope, { selector: '#nothing' })).toThrow(expect.objectContaining({ code: 'element_not_found' }) as Error);
    expect(() => selectTargets(scope, { selector: 'p[' })).toThrow(expect.objectContaining({ code: 'invalid_selector' }) as Error);
  });

  it('keeps excluded elements (the agent itself) out even when an allowed subtree holds them', async () => {
    const document = await parse(PAGE);
    const agent = document.getElementById('agent')!;
    const scope = new DomScope(document, ['body'], [agent]);
    expect(() => scope.resolve('#inside-agent')).toThrow(expect.objectContaining({ code: 'outside_allow_list' }) as Error);
    expect(JSON.stringify(snapshotElements(scope.subtrees(), { scope }).nodes)).not.toContain('Agent');
    expect(scope.resolve('#out').element.id).toBe('out');
  });

  it('bounds a snapshot by its node limit', async () => {
    const items = Array.from({ length: 50 }, (_, i) => `<li>item ${i}</li>`).join('');
    const document = await parse(`<html><body><ul id="list">${items}</ul></body></html>`);
    const scope = new DomScope(document, ['#list']);
    const snapshot = snapshotElements(scope.subtrees(), { scope, limits: { maxNodes: 10 } });
    expect(snapshot.truncated).toBe(true);
    expect(snapshot.nodes[0]!.children).toHaveLength(9);
  });

  it('refuses bad allow-lists with typed errors', async () => {
    const document = await parse(PAGE);
    expect(() => parseAllowSelectors(' , ')).toThrow(expect.objectContaining({ code: 'invalid_allow_selectors' }) as Error);
    expect(() => new DomScope(document, ['form[['])).toThrow(expect.objectContaining({ code: 'invalid_selector' }) as Error);
    expect(parseAllowSelectors('form#signup, :is(#a, #b)')).toEqual(['form#signup', ':is(#a, #b)']);
    expect(parseAllowOrigins('https://a.example/ http://b.example:8080')).toEqual(['https://a.example', 'http://b.example:8080']);
    expect(() => parseAllowOrigins('javascript:alert(1)')).toThrow(expect.objectContaining({ code: 'invalid_allow_origins' }) as Error);
  });
});

describe('the DOM tools over a document', () => {
  const signal = new AbortController().signal;
  const context = { signal } as never;

  async function setup() {
    const document = await parse(PAGE);
    const performed: DomPerform[] = [];
    const driver = documentDomDriver({
      document,
      allowSelectors: ['form#signup'],
      exclude: () => [document.getElementById('agent')!],
      pageUrl: () => 'https://shop.example/signup?token=abc#frag',
      perform: (step) => {
        performed.push(step);
        if (step.action === 'fill') (step.element as unknown as { setAttribute(n: string, v: string): void }).setAttribute('value', step.value);
        return Promise.resolve();
      },
    });
    const registry = new ToolRegistry();
    registerDomTools(registry, driver, 'demo');
    return { document, performed, registry };
  }

  it('registers each tool with its schema, capabilities and approval', async () => {
    const { registry } = await setup();
    const tools = registry.list('demo');
    expect(tools.map((t) => `${t.name} ${t.capabilities.join(',')} ${t.requiresApproval}`)).toEqual([
      'dom_click dom.act true',
      'dom_fill dom.act true',
      'dom_read_text dom.read false',
      'dom_select dom.act true',
      'dom_snapshot dom.read false',
      'dom_submit dom.act true',
    ]);
  });

  it('journals an action with its target and the allowed subtree before and after; the URL keeps no query or fragment', async () => {
    const { registry, performed } = await setup();
    const output = (await registry.resolve('demo', 'dom_fill').handler({ selector: '#mail', value: 'ana@example.com' }, context)) as {
      url: string;
      target: unknown;
      before: { nodes: DomSnapshotNode[] };
      after: { nodes: DomSnapshotNode[] };
    };
    expect(performed).toHaveLength(1);
    expect(output.url).toBe('https://shop.example/signup');
    expect(output.target).toEqual({ role: 'textbox', name: 'Email', selector: '#mail' });
    expect(find(output.before.nodes, (n) => n.selector === '#mail')?.value).toBe('');
    expect(find(output.after.nodes, (n) => n.selector === '#mail')?.value).toBe('ana@example.com');
  });

  it('refuses secret fields, wrong element kinds, unknown options, other origins and parts outside the allow-list, touching nothing', async () => {
    const { registry, performed } = await setup();
    const call = (tool: string, input: unknown) => Promise.resolve().then(() => registry.resolve('demo', tool).handler(input, context));
    await expect(call('dom_fill', { selector: '#pw', value: 'x' })).rejects.toMatchObject({ code: 'secret_field' });
    await expect(call('dom_fill', { selector: '#terms', value: 'x' })).rejects.toMatchObject({ code: 'not_fillable' });
    await expect(call('dom_select', { selector: '#plan', value: 'gold' })).rejects.toMatchObject({ code: 'option_not_found' });
    await expect(call('dom_select', { selector: '#name', value: 'free' })).rejects.toMatchObject({ code: 'not_selectable' });
    await expect(call('dom_click', { selector: 'form a' })).rejects.toMatchObject({ code: 'origin_not_allowed' });
    await expect(call('dom_click', { selector: 'button[disabled]' })).rejects.toMatchObject({ code: 'element_disabled' });
    await expect(call('dom_click', { selector: '#out' })).rejects.toMatchObject({ code: 'outside_allow_list' });
    await expect(call('dom_click', { selector: '#inside-agent' })).rejects.toMatchObject({ code: 'outside_allow_list' });
    await expect(call('dom_submit', { selector: 'nav' })).rejects.toMatchObject({ code: 'outside_allow_list' });
    expect(performed).toEqual([]);
    // A part of a form allowed without its form: its submit button would send fields the agent may not see.
    const document = await parse(PAGE);
    const partial = documentDomDriver({
      document,
      allowSelectors: ['#signup > button'],
      pageUrl: () => 'https://shop.example/signup',
      perform: (step) => Promise.resolve(void performed.push(step)),
    });
    await expect(partial.act({ action: 'click', selector: 'button[type=submit]' }, signal)).rejects.toMatchObject({ code: 'outside_allow_list' });
    await expect(partial.act({ action: 'submit', selector: 'button[type=submit]' }, signal)).rejects.toMatchObject({ code: 'outside_allow_list' });
    // A cancelled step touches nothing.
    await expect(partial.act({ action: 'click', selector: '#signup > button' }, AbortSignal.abort())).rejects.toMatchObject({ code: 'cancelled' });
    expect(performed).toEqual([]);
    // Allowed: the form submits to its own origin, and the option is found by label too.
    await call('dom_submit', { selector: '#name' });
    await call('dom_select', { selector: '#plan', value: 'Free' });
    expect(performed.map((step) => step.action)).toEqual(['submit', 'select']);
  });
});
