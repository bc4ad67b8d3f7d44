import * as z from 'zod';
import { defineTool, type ToolSpec } from '../tool.ts';
import type { ToolRegistry } from '../toolRegistry.ts';
import { DomSelectorSchema } from './domScope.ts';
import type { DomSnapshot, DomSnapshotNode } from './domSnapshot.ts';

/** A role name as snapshots give it (`button`, `textbox`, `heading`). */
export const DomRoleSchema = z
  .string()
  .regex(/^[a-z]{2,40}$/, 'a role is a lowercase ARIA role name')
  .describe('ARIA role of the elements to read, e.g. button, textbox, heading');

/** What a read names: a selector, a role, both (the role within the selector's matches), or neither (every allowed part). */
export const DomReadInputSchema = z.object({
  selector: DomSelectorSchema.optional().describe('CSS selector of the part of the page to read'),
  role: DomRoleSchema.optional(),
});
export type DomReadInput = z.output<typeof DomReadInputSchema>;

export const DomReadTextInputSchema = DomReadInputSchema.extend({
  maxChars: z.number().int().min(1).max(50_000).default(20_000).describe('most characters of text returned'),
});
export type DomReadTextInput = z.output<typeof DomReadTextInputSchema>;

/** One change to the page: what `dom_click`, `dom_fill`, `dom_select` and `dom_submit` ask for. */
export const DomActionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('click'), selector: DomSelectorSchema }),
  z.object({ action: z.literal('fill'), selector: DomSelectorSchema, value: z.string().max(10_000) }),
  z.object({ action: z.literal('select'), selector: DomSelectorSchema, value: z.union([z.string().max(1000), z.array(z.string().max(1000)).min(1).max(100)]) }),
  z.object({ action: z.literal('submit'), selector: DomSelectorSchema }),
]);
export type DomAction = z.output<typeof DomActionSchema>;

/** What a text read returns. */
export interface DomReadTextOutput {
  /** The page's origin and path (never its query or fragment, which may hold tokens). */
  url: string;
  text: string;
  truncated: boolean;
  /** How many elements the read covered. */
  elements: number;
}

/** What a snapshot read returns. */
export interface DomSnapshotOutput extends DomSnapshot {
  url: string;
}

/** What an action returns, and so what the journal keeps of it: the action, its target, and the allowed subtree before and after. */
export interface DomActionOutput {
  action: DomAction['action'];
  selector: string;
  url: string;
  target: Pick<DomSnapshotNode, 'role' | 'name' | 'selector'>;
  /** How many allowed elements the selector matched; the action went to the first. */
  matches: number;
  before: DomSnapshot;
  after: DomSnapshot;
}

/**
 * The DOM tools' contract with their host: the page the widget is embedded in (the live DOM)
 * or, on Node, a Chromium page driven by Playwright. A driver enforces the page's allowed
 * selectors and origins and redacts secret fields; the tools validate inputs and journal outputs.
 */
export interface DomDriver {
  readText(request: DomReadTextInput, signal: AbortSignal): Promise<DomReadTextOutput>;
  snapshot(request: DomReadInput, signal: AbortSignal): Promise<DomSnapshotOutput>;
  act(action: DomAction, signal: AbortSignal): Promise<DomActionOutput>;
}

/** Options of {@link domToolSpecs}. */
export interface DomToolsOptions {
  /** Whether a person approves each action that changes the page. Default `true`. */
  requireApproval?: boolean;
  /** Where the tools act, for their descriptions (`this page`, `the browser page`). */
  where?: string;
}

const selectorParam = DomSelectorSchema.describe('CSS selector of the element, within the parts of the page the agent may use');

/**
 * The DOM tools over `driver`: `dom_read_text` and `dom_snapshot` read (capability `dom.read`),
 * `dom_click`, `dom_fill`, `dom_select` and `dom_submit` act (capability `dom.act`, each behind
 * an approval unless `requireApproval: false`). An action's output is the action with
 * before/after snapshots of the allowed subtree it touched, so the journal keeps both.
 */
export function domToolSpecs(driver: DomDriver, options: DomToolsOptions = {}): Record<string, ToolSpec> {
  const where = options.where ?? 'this page';
  const requiresApproval = options.requireApproval ?? true;
  const act = { cost: 1, latency: 50, capabilities: ['dom.act'], idempotent: false, requiresApproval };
  return {
    dom_read_text: defineTool({
      description: `Read the text of ${where}, by CSS selector or ARIA role, within the parts the page allows.`,
      parameters: DomReadTextInputSchema,
      cost: 0.1,
      latency: 10,
      capabilities: ['dom.read'],
      idempotent: true,
      aliases: ['read the page', 'page text'],
      handler: (input, context) => driver.readText(input, context.signal),
    }),
    dom_snapshot: defineTool({
      description: `Take an accessibility-tree snapshot (roles, names, values, states, selectors) of ${where}, by CSS selector or ARIA role, within the parts the page allows; password values are never captured.`,
      parameters: DomReadInputSchema,
      cost: 0.2,
      latency: 10,
      capabilities: ['dom.read'],
      idempotent: true,
      aliases: ['page snapshot', 'accessibility tree'],
      handler: (input, context) => driver.snapshot(input, context.signal),
    }),
    dom_click: defineTool({
      description: `Click an element of ${where} (a button, link, check box), recording the page part before and after.`,
      parameters: z.object({ selector: selectorParam }),
      ...act,
      handler: ({ selector }, context) => driver.act({ action: 'click', selector }, context.signal),
    }),
    dom_fill: defineTool({
      description: `Type a value into a text field of ${where} (never a password field), recording the page part before and after.`,
      parameters: z.object({ selector: selectorParam, value: z.string().max(10_000).describe('the text the field holds afterwards') }),
      ...act,
      handler: ({ selector, value }, context) => driver.act({ action: 'fill', selector, value }, context.signal),
    }),
    dom_select: defineTool({
      description: `Choose an option (by value or label) of a select of ${where}, recording the page part before and after.`,
      parameters: z.object({
        selector: selectorParam,
        value: z.union([z.string().max(1000), z.array(z.string().max(1000)).min(1).max(100)]).describe('option value or label (a list for a multiple select)'),
      }),
      ...act,
      handler: ({ selector, value }, context) => driver.act({ action: 'select', selector, value }, context.signal),
    }),
    dom_submit: defineTool({
      description: `Submit a form of ${where} (the form or an element inside it), recording the page part before and after.`,
      parameters: z.object({ selector: selectorParam }),
      ...act,
      handler: ({ selector }, context) => driver.act({ action: 'submit', selector }, context.signal),
    }),
  };
}

/** Register the DOM tools over `driver` in `profile`; returns the names registered. */
export function registerDomTools(registry: ToolRegistry, driver: DomDriver, profile: string, options: DomToolsOptions = {}): string[] {
  const specs = domToolSpecs(driver, options);
  const names = Object.keys(specs).sort();
  for (const name of names) registry.register(profile, name, specs[name]!);
  return names;
}
