import { z } from 'zod';
import { ToolRegistry } from '../../src/core/index.ts';
import type { Reply } from './modelServer.ts';

/**
 * The tools of the delegation tests: `take_note` in the lead profile and `lookup_price` in the
 * `travel` profile a lead run delegates to; each flight looked up is pushed onto `prices`.
 */
export function delegationRegistry(prices: string[] = []): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register('lead', 'take_note', {
    description: 'Write a note down',
    parameters: z.object({ text: z.string() }),
    handler: ({ text }) => ({ noted: text }),
  });
  tools.register('travel', 'lookup_price', {
    description: 'Price of a flight by its number',
    parameters: z.object({ flight: z.string() }),
    idempotent: true,
    handler: ({ flight }) => {
      prices.push(flight);
      return { flight, price: flight === 'LH1' ? 320 : 280 };
    },
  });
  return tools;
}

/**
 * A host's demo agent delegates publishing a note to the `research` profile, whose call of
 * `publish_note` waits for a person; after the approval the research agent answers and reflects,
 * then the demo agent does (the scripted model server's replies, in order).
 */
export const PUBLISH_THROUGH_RESEARCH: readonly Reply[] = [
  { calls: [{ name: 'delegate', args: { profile: 'research', goal: 'Publish the Lyon note' } }] },
  { calls: [{ name: 'publish_note', args: { title: 'Lyon office' } }] },
  { text: 'Published the Lyon note.' },
  { text: 'Published after an approval.' },
  { text: 'Research published the Lyon note.' },
  { text: 'Delegated the publication; it waited for an approval.' },
];

/** Register `publish_note` (each call needs a person's approval) in the `research` profile; each title published is pushed onto `published`. */
export function registerPublishNote(registry: ToolRegistry, published: string[] = []): void {
  registry.register('research', 'publish_note', {
    description: 'Publish a note to the company wiki',
    parameters: z.object({ title: z.string() }),
    requiresApproval: true,
    handler: ({ title }) => {
      published.push(title);
      return { published: title };
    },
  });
}
