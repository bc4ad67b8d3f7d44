import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Planner, ToolRegistry, type Plan } from '../../src/core/index.ts';
import { stem } from '../../src/core/planning/ranking/stem.ts';
import { termsOf } from '../../src/core/planning/ranking/terms.ts';
import { createSequentialIds } from '../../src/core/testing.ts';

const NOW = Date.UTC(2026, 2, 2, 9, 0);

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  const add = (name: string, description: string, parameters: z.ZodType, options: { requiresApproval?: boolean } = {}) =>
    tools.register('p', name, { description, parameters, handler: () => null, ...options });
  add(
    'book_flight',
    "Books a seat on a specific flight number. Charges the traveller's saved card.",
    z.object({
      flight_number: z.string().describe('Airline flight number, e.g. LH 400'),
      date: z.string().meta({ format: 'date' }).describe('Date of the flight'),
    }),
    { requiresApproval: true },
  );
  add(
    'cancel_flight',
    'Cancel an existing flight booking by its confirmation code.',
    z.object({
      confirmation_code: z.string().describe('Six-character booking reference'),
      reason: z.string().describe('Why the booking is cancelled').optional(),
    }),
    {
      requiresApproval: true,
    },
  );
  add(
    'files_search',
    'Find files in your drive by name or content.',
    z.object({ query: z.string().describe('Words in the file name or content'), file_type: z.enum(['pdf', 'docx', 'xlsx', 'any']).optional() }),
  );
  add('request_return', 'Start a return for an order.', z.object({ order_id: z.string().describe('Order number') }), { requiresApproval: true });
  add('lock_door', 'Lock or unlock a door of the home.', z.object({ door: z.string().describe('Which door').optional(), locked: z.boolean().optional() }), {
    requiresApproval: true,
  });
  add('calendar_list_events', 'List the events of the calendar on a day.', z.object({ date: z.string().meta({ format: 'date' }).describe('Day') }));
  add(
    'get_forecast',
    'Weather forecast for the coming days at a location.',
    z.object({ location: z.string().describe('City or place'), date: z.string().meta({ format: 'date' }).describe('Day').optional() }),
  );
  tools.register('p', 'lights_set_state', {
    description: 'Switch the lights of a room on or off.',
    parameters: z.object({ room: z.string().describe('Room name'), on: z.boolean().describe('true to switch on, false to switch off') }),
    handler: () => null,
    examples: ['apaga las luces de la cocina'],
  });
  return tools;
}

const tools = registry();
const planner = new Planner({ ids: createSequentialIds('p') });
const plan = (goal: string): Plan => planner.plan({ goal, profile: 'p', registry: tools, traceId: 't', runId: 'r', now: NOW });
const toolOf = (p: Plan) => p.steps[0]?.tool ?? p.inputRequired?.tool ?? null;

describe('planner: the action a request states', () => {
  it('prefers the tool whose name says the action asked for over one that only mentions it ("book" is in a cancellation)', () => {
    expect(toolOf(plan('book me the flight KL 605'))).toBe('book_flight');
    expect(toolOf(plan('cancel my flight booking XK42PL'))).toBe('cancel_flight');
  });

  it('refuses a clause that opens with an action the matched tool does not do, unless the verb is phrasal', () => {
    const printing = plan('print the document budget.xlsx');
    expect(printing.stopReason).toBe('no_relevant_tool');
    expect(toolOf(plan('find the document budget.xlsx'))).toBe('files_search');
    expect(toolOf(plan('send back order 7720, it arrived broken'))).toBe('request_return');
  });
});

describe('planner: German compounds and capitals', () => {
  it('reads an unknown compound by its known parts ("Wohnungstür" is a door)', () => {
    expect(termsOf('wohnungstur', 'de')?.stems).toContain(stem('door'));
    expect(toolOf(plan('verriegle die Haustür'))).toBe('lock_door');
  });

  it('does not take a capitalised German noun for a name ("Termine" asks for the calendar, not a place)', () => {
    const p = plan('Zeig mir meine Termine für morgen');
    expect(toolOf(p)).toBe('calendar_list_events');
    expect(p.steps[0]?.input).toEqual({ date: '2026-03-03' });
  });
});

describe('planner: words a tool matched only in its examples', () => {
  it('are values to fill, not the action asked for ("kitchen" matched in an example is the room)', () => {
    const p = plan('turn on the kitchen lights');
    expect(p.steps[0]).toMatchObject({ tool: 'lights_set_state', input: { room: 'kitchen', on: true } });
  });
});
