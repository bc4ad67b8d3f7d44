import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Planner, ToolRegistry, type Plan } from '../../src/core/index.ts';
import { readQuery } from '../../src/core/planning/ranking/bm25f.ts';
import { editDistance } from '../../src/core/planning/ranking/editDistance.ts';
import { createSequentialIds } from '../../src/core/testing.ts';

// Tools written for these cases (not from the planner's labelled set): pairs that share their
// words and differ in what their parameters can hold.
function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  const add = (name: string, description: string, parameters: z.ZodType, extra: Record<string, unknown> = {}) =>
    tools.register('p', name, { description, parameters, handler: () => null, ...extra });
  add(
    'weather_now',
    'Weather conditions at a place right now: temperature, wind, humidity and sky.',
    z.object({ place: z.string().describe('City or place') }),
  );
  add(
    'weather_outlook',
    'Outlook for the coming days at a place.',
    z.object({ place: z.string().describe('City or place'), day: z.string().describe('Day to forecast').meta({ format: 'date' }).optional() }),
  );
  add('inbox_unread', 'List unread e-mails in the inbox.', z.object({ sender: z.string().describe('Only from this sender').optional() }));
  add(
    'mail_send',
    'Send an e-mail.',
    z.object({ to: z.array(z.string()).describe('Recipients: e-mail address or contact name'), body: z.string().describe('Text of the message') }),
    { requiresApproval: true },
  );
  add(
    'share_of_value',
    'Percentage of a value: P percent of a whole.',
    z.object({ percent: z.number().describe('The percentage'), whole: z.number().describe('The whole') }),
  );
  add(
    'book_seat',
    'Book a seat on a flight.',
    z.object({ flight_number: z.string().describe('Flight number'), seats: z.number().int().describe('Number of seats').optional() }),
    { requiresApproval: true },
  );
  add(
    'find_films',
    'Search films by genre, director or cast.',
    z.object({
      director: z.string().describe('Director').optional(),
      actor: z.string().describe('Actor in the cast').optional(),
      genre: z.enum(['comedy', 'drama', 'horror']).describe('Genre').optional(),
    }),
  );
  add('camera_view', 'A still image from one of the home cameras.', z.object({ camera: z.string().describe('Camera name, e.g. garden') }));
  add('plan_trip', 'Plan travel: flights, trains and stays for a trip.', z.object({ destination: z.string().describe('Where to') }));
  add('headlines', 'Top news headlines by section.', z.object({ section: z.enum(['world', 'technology', 'sports']).describe('Section').optional() }));
  add('calculator', 'Calculate an arithmetic expression.', z.object({ expression: z.string().describe('The expression') }));
  add(
    'sms_send',
    'Send a text message to a phone number.',
    z.object({ phone: z.string().describe('Phone number'), message: z.string().describe('Text of the message') }),
    { requiresApproval: true },
  );
  add(
    'recipe_search',
    'Find recipes by dish, leaving out ingredients.',
    z.object({ dish: z.string().describe('Dish name').optional(), exclude: z.array(z.string()).describe('Ingredients to leave out').optional() }),
  );
  add(
    'wake_alarm',
    'Set a wake-up alarm, once or repeating on some days.',
    z.object({
      time: z.string().describe('Alarm time').meta({ format: 'time' }),
      days: z
        .array(z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']))
        .describe('Days it repeats on')
        .optional(),
    }),
    { requiresApproval: true },
  );
  add(
    'shop_search',
    'Search products in the shop.',
    z.object({
      query: z.string().describe('What to look for'),
      max_price: z.number().describe('Highest price').optional(),
      min_rating: z.number().describe('Lowest star rating').optional(),
    }),
  );
  add(
    'cancel_reservation',
    'Cancel a hotel reservation by its confirmation code.',
    z.object({ confirmation_code: z.string().describe('Six-character confirmation code') }),
    { requiresApproval: true },
  );
  add(
    'workout_log',
    'Log a workout in the fitness diary.',
    z.object({ activity: z.string().describe('Kind of workout'), duration_minutes: z.number().describe('Length in minutes') }),
  );
  add('new_note', 'Create a new note.', z.object({ text: z.string().describe('Text of the note') }));
  return tools;
}

const tools = registry();
const planner = new Planner({ ids: createSequentialIds('p') });
const NOW = Date.UTC(2026, 2, 2, 9, 0);
const plan = (goal: string): Plan => planner.plan({ goal, profile: 'p', registry: tools, traceId: 't', runId: 'r', now: NOW });
const first = (p: Plan) => p.steps[0] ?? (p.stopReason === 'input_required' ? p.inputRequired : undefined);

describe('planner: the arguments choose among close tools', () => {
  it('takes the tool with room for a stated day over one that matched the same words better', () => {
    const p = plan('what will the weather be in Lyon on Saturday');
    expect(first(p)).toMatchObject({ tool: 'weather_outlook', input: { place: 'Lyon', day: '2026-03-07' } });
    const chosen = p.candidates.find((c) => c.selected);
    expect(chosen?.tool).toBe('weather_outlook');
    expect(chosen?.reason).toContain("request's values");
    expect(first(plan('weather in Lyon'))).toMatchObject({ tool: 'weather_now', input: { place: 'Lyon' } });
  });

  it('sends what "email X saying Y" says rather than listing the inbox', () => {
    expect(first(plan('email bob@example.com saying the report is ready'))).toMatchObject({
      tool: 'mail_send',
      input: { to: ['bob@example.com'], body: 'the report is ready' },
    });
  });

  it('meets "percentage" from "percent", and "15% of 80" fills the two numbers', () => {
    expect(first(plan('what is 15% of 80'))).toMatchObject({ tool: 'share_of_value', input: { percent: 15, whole: 80 } });
  });

  it('a day written 3/18 is not division and a code like 555-0142 is not subtraction', () => {
    const asksToCalculate = (text: string) => readQuery(text).words.some((w) => w.token.word === 'calculate' && !w.value);
    expect(asksToCalculate('weather outlook for Oslo on 3/18')).toBe(false);
    expect(asksToCalculate('send a text to 555-0142 saying I am running late')).toBe(false);
    expect(asksToCalculate('add SKU 88-1042 to the cart')).toBe(false);
    expect(asksToCalculate('what is 144/12')).toBe(true);
    expect(asksToCalculate('what is 7 - 2')).toBe(true);
    expect(asksToCalculate('2+3')).toBe(true);
    expect(first(plan('what is 144/12'))?.tool).toBe('calculator');
    expect(first(plan('weather outlook for Oslo on 3/18'))).toMatchObject({ tool: 'weather_outlook', input: { place: 'Oslo' } });
  });

  it('"news" is not "new"', () => {
    expect(first(plan('latest tech news'))?.tool).toBe('headlines');
  });
});

describe('planner: slot filling reads codes, casts and modifiers', () => {
  it('reads a flight code before numbers, so its digits are not a count', () => {
    expect(first(plan('book UA 88 please'))).toMatchObject({ tool: 'book_seat', input: { flight_number: 'UA 88' } });
    expect(first(plan('book 2 seats on AF 22'))).toMatchObject({ tool: 'book_seat', input: { flight_number: 'AF 22', seats: 2 } });
  });

  it('"with" and "starring" introduce an actor, "by" a director', () => {
    expect(first(plan('films with Tom Hanks'))?.input).toEqual({ actor: 'Tom Hanks' });
    expect(first(plan('a horror film starring Toni Collette'))?.input).toEqual({ genre: 'horror', actor: 'Toni Collette' });
    expect(first(plan('films by Greta Gerwig'))?.input).toEqual({ director: 'Greta Gerwig' });
  });

  it('takes the words in front of a parameter’s noun as its value, with their span', () => {
    const p = plan('show me the driveway camera');
    expect(first(p)).toMatchObject({ tool: 'camera_view', input: { camera: 'driveway' } });
    const source = p.steps[0]!.sources!['camera']!;
    expect(p.goal.slice(source.start, source.end)).toBe('driveway');
    expect(source.reason).toContain('camera');
  });
});

describe('planner: abstains when a tool serves only a qualifier of the request', () => {
  it('refuses "travel insurance" for a trip planner, with a reason that names both words', () => {
    const p = plan('recommend a good travel insurance');
    expect(p.steps).toEqual([]);
    expect(p.stopReason).toBe('no_relevant_tool');
    expect(p.refusals?.[0]).toMatchObject({ code: 'low_coverage', suggestions: ['plan_trip'] });
    expect(p.refusals?.[0]?.message).toContain('travel insurance');
  });

  it('still plans when the head word is the tool’s own or goes into an argument', () => {
    expect(first(plan('plan travel to Lisbon'))).toMatchObject({ tool: 'plan_trip', input: { destination: 'Lisbon' } });
    expect(first(plan('create a new note saying buy milk'))).toMatchObject({ tool: 'new_note', input: { text: 'buy milk' } });
  });
});

describe('planner: a word only a parameter’s name has does not choose the tool', () => {
  const own = new ToolRegistry();
  own.register('p', 'recent_mail', {
    description: 'Most recent e-mails in the inbox.',
    parameters: z.object({ limit: z.number().int().describe('How many to show').optional() }),
    handler: () => null,
  });
  own.register('p', 'speed_test', { description: 'Measure the speed of the internet connection.', parameters: z.object({}), handler: () => null });
  const ask = (goal: string) => planner.plan({ goal, profile: 'p', registry: own, traceId: 't', runId: 'r', now: NOW });

  it('refuses "the credit limit on my card" rather than listing mail with a limit', () => {
    const p = ask('what is the credit limit on my card');
    expect(p.steps).toEqual([]);
    expect(p.refusals?.[0]).toMatchObject({ code: 'weak_evidence', suggestions: ['recent_mail'] });
  });

  it('still reads the parameter once the request asks for the tool', () => {
    expect(first(ask('show my most recent e-mails, limit 3'))).toMatchObject({ tool: 'recent_mail', input: { limit: 3 } });
  });
});

describe('planner: a colon introduces the message, and the one name before it the recipient', () => {
  const own = new ToolRegistry();
  own.register('p', 'sms', {
    description: 'Send a text message to a contact or a phone number.',
    parameters: z.object({ recipient: z.string().describe('Contact name or phone number'), message: z.string().describe('Text to send') }),
    handler: () => null,
    requiresApproval: true,
  });
  const ask = (goal: string) => planner.plan({ goal, profile: 'p', registry: own, traceId: 't', runId: 'r', now: NOW });

  it('texts Jake "running late", not a message to "running late"', () => {
    const p = ask('text Jake: running late');
    expect(first(p)).toMatchObject({ tool: 'sms', input: { recipient: 'Jake', message: 'running late' } });
    expect(p.steps[0]?.sources?.['recipient']?.reason).toContain('before the colon');
  });

  it('takes a number before the colon as it is, and guesses no recipient among several words', () => {
    expect(first(ask('text 555-0142: on my way'))).toMatchObject({ tool: 'sms', input: { recipient: '555-0142', message: 'on my way' } });
    expect(ask('text my brother Jake: running late').steps).toEqual([]);
  });
});

describe('planner: lists of options, exclusions and bounds', () => {
  it('fills a list of enum options from day names, "weekdays" and "the weekend"', () => {
    expect(first(plan('set an alarm for 7am on weekdays'))?.input).toEqual({ time: '07:00:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] });
    expect(first(plan('alarm at 9am on Saturday and Sunday'))?.input).toEqual({ time: '09:00:00', days: ['sat', 'sun'] });
  });

  it('reads what follows "without" into a parameter that leaves things out, and ends the dish there', () => {
    const p = plan('lasagna recipes without mushrooms or onions');
    expect(first(p)).toMatchObject({ tool: 'recipe_search', input: { exclude: ['mushrooms', 'onions'] } });
    expect(p.steps[0]?.sources?.['exclude']?.reason).toContain('without');
  });

  it('gives a number after "under" to the highest-price parameter and after "at least" to the lowest', () => {
    expect(first(plan('search the shop for headphones under 100 with at least 4 stars'))?.input).toMatchObject({ max_price: 100, min_rating: 4 });
  });
});

describe('planner: asks for missing arguments only when the tool is clearly the one', () => {
  it('asks for the code of a hotel reservation it was clearly asked to cancel', () => {
    const p = plan('cancel my hotel reservation');
    expect(p.stopReason).toBe('input_required');
    expect(p.inputRequired).toMatchObject({ tool: 'cancel_reservation', missing: [{ name: 'confirmation_code' }] });
  });

  it('refuses instead of asking when the tool matched only loosely', () => {
    const p = plan('what is the code of the gym');
    expect(p.stopReason).toBe('no_relevant_tool');
    expect(p.refusals?.[0]).toMatchObject({ code: 'missing_arguments', suggestions: ['cancel_reservation'] });
  });

  it('refuses a tool that matched only the verb when it takes nothing of what the request acts on', () => {
    const p = plan('cancel my gym membership');
    expect(p.stopReason).toBe('no_relevant_tool');
    expect(p.refusals?.[0]).toMatchObject({ code: 'low_coverage', suggestions: ['cancel_reservation'] });
    expect(p.refusals?.[0]?.message).toContain('"gym membership"');
    // A day the tool has no room for counts as what it acts on too.
    expect(plan('cancel the yoga class on Friday').refusals?.[0]?.message).toContain('"yoga class friday"');
    // The same verb with the tool's own object still asks for the code.
    expect(plan('cancel my reservation').inputRequired).toMatchObject({ tool: 'cancel_reservation' });
  });

  it('knows kinds of exercise and the verbs of recording in other languages', () => {
    expect(first(plan('I swam for 45 minutes yesterday'))?.tool).toBe('workout_log');
    expect(first(plan('registra 40 minutos de bicicleta'))).toMatchObject({ tool: 'workout_log', input: { duration_minutes: 40 } });
  });

  it('reads "1 hour of yoga" as a length of time, not as a date', () => {
    expect(first(plan('log 1 hour of yoga in my workout diary'))).toMatchObject({ tool: 'workout_log', input: { activity: 'yoga', duration_minutes: 60 } });
  });
});

describe('planner: typos', () => {
  it('counts two neighbouring letters swapped as one edit, so "serach" finds a search tool', () => {
    expect(editDistance('serach', 'search', 1)).toBe(1);
    expect(editDistance('recieve', 'receive', 1)).toBe(1);
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
    expect(editDistance('ca', 'abc', 3)).toBe(3);
    expect(first(plan('serach the shop for a 4k monitor'))?.tool).toBe('shop_search');
  });
});
