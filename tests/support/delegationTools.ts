import { z } from 'zod';
import { ToolRegistry } from '../../src/core/index.ts';

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
