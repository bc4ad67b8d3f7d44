import { z } from 'zod';
import { ToolRegistry, registerBuiltinTools } from '../../src/core/index.ts';

/** The tools of the golden agent journals (tests/fixtures/agent-journals.ndjson): the built-ins and two of their own. */
export function goldenAgentRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  registry.register('demo', 'lookup_price', {
    description: 'Price of a flight by its number',
    parameters: z.object({ flight: z.string() }),
    idempotent: true,
    handler: ({ flight }) => ({ flight, price: flight === 'LH1' ? 320 : 280 }),
  });
  registry.register('demo', 'book_flight', {
    description: 'Book a flight by its number',
    parameters: z.object({ flight: z.string() }),
    requiresApproval: true,
    handler: ({ flight }) => ({ booked: flight }),
  });
  return registry;
}
