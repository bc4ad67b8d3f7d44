import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { firstCall as first, plannerOver, toolsOf, type TestTool } from '../support/plannerTools.ts';

// Phrases and symbols that say what a request asks for without the tool's words: an amount as a
// ceiling, a degree sign, what one earns, what one has on a day, the way somewhere; the kinds of
// file people name; a question after a colon; and today, which a tool without a day serves. Tools
// written for these cases (not from the planner's labelled set).

const catalogue: TestTool = {
  description: 'Searches the shop’s catalogue.',
  parameters: z.object({ query: z.string().describe('What to look for'), max_price: z.number().describe('Highest price').optional() }),
};
const payments: TestTool = {
  description: 'Search past payments and transfers by amount in any currency.',
  parameters: z.object({ amount: z.number().describe('Amount of money'), currency: z.string().describe('Currency code').optional() }),
};
const calendarList: TestTool = {
  description: 'Show the events of a day from your calendar.',
  parameters: z.object({ day: z.string().describe('Day').meta({ format: 'date' }) }),
};
const calendarCancel: TestTool = {
  description: 'Cancel an event of your calendar by its title and day.',
  parameters: z.object({ title: z.string().describe('Event title'), day: z.string().describe('Day').meta({ format: 'date' }) }),
};
const flights: TestTool = {
  description: 'Find flights on a day from one airport to another, anything from budget airlines to business class.',
  parameters: z.object({
    from: z.string().describe('Airport of departure'),
    to: z.string().describe('Airport of arrival'),
    day: z.string().meta({ format: 'date' }),
  }),
};
const files: TestTool = {
  description: 'Find spreadsheets, documents and other files in your drive by name or content.',
  parameters: z.object({ query: z.string().describe('Words to look for') }),
  idempotent: true,
};

describe('planner: symbols and stock phrases', () => {
  it('reads an amount as a ceiling ("under $40") as a price, not as any money', () => {
    const plan = plannerOver(toolsOf({ catalogue_search: catalogue, payments_search: payments }));
    expect(first(plan('search for a desk lamp under $40'))).toMatchObject({ tool: 'catalogue_search', input: { query: 'desk lamp', max_price: 40 } });
    expect(first(plan('search for a desk lamp under 40 dollars'))?.tool).toBe('catalogue_search');
    expect(first(plan('find payments of $40'))).toMatchObject({ tool: 'payments_search', input: { amount: 40 } });
  });

  it('reads a degree sign as a temperature', () => {
    const thermostat: TestTool = {
      description: 'Set the target temperature of the heating.',
      parameters: z.object({ temperature: z.number().describe('Target temperature'), room: z.string().describe('Room').optional() }),
    };
    const rotate: TestTool = { description: 'Rotate a photo by a number of degrees.', parameters: z.object({ photo: z.string(), degrees: z.number() }) };
    const plan = plannerOver(toolsOf({ set_heating: thermostat, rotate_photo: rotate }));
    expect(first(plan('make it 21°C in the kitchen'))).toMatchObject({ tool: 'set_heating', input: { temperature: 21 } });
    // An angle is no temperature.
    expect(first(plan('rotate holiday.jpg 90°'))?.tool).toBe('rotate_photo');
  });

  it('reads what someone earns as a salary, in English and Portuguese, and not every "make" or "ganhou"', () => {
    const salary: TestTool = {
      description: 'Typical salary range for a job title in a city.',
      parameters: z.object({ title: z.string().describe('Job title'), city: z.string().describe('City').optional() }),
    };
    const mealPlan: TestTool = { description: 'Make a meal plan for a number of days.', parameters: z.object({ days: z.number().int().min(1) }) };
    const plan = plannerOver(toolsOf({ salary_range: salary, meal_plan: mealPlan }));
    expect(first(plan('how much does a plumber make in Ohio'))?.tool).toBe('salary_range');
    expect(first(plan('quanto ganha um professor em Lisboa?'))?.tool).toBe('salary_range');
    expect(plan('quem ganhou a copa de 1994?').steps).toEqual([]);
  });

  it('reads what one has on a day as one’s calendar, also after a colon, where the question is not a title', () => {
    const plan = plannerOver(toolsOf({ calendar_list: calendarList, calendar_cancel: calendarCancel, find_flights: flights }));
    expect(first(plan('do I have anything on Friday?'))).toMatchObject({ tool: 'calendar_list', input: { day: '2026-03-06' } });
    expect(first(plan('calendar: what do I have on Friday'))).toMatchObject({ tool: 'calendar_list', input: { day: '2026-03-06' } });
    // A title after a colon is still taken.
    expect(first(plan('cancel on Friday: Dentist'))).toMatchObject({ tool: 'calendar_cancel', input: { title: 'Dentist' } });
  });

  it('reads the stock question for the way somewhere as asking for directions, in German too', () => {
    const directions: TestTool = {
      description: 'Route from where you are to a destination, on foot, by car or by public transport.',
      parameters: z.object({ destination: z.string().describe('Where to go') }),
    };
    const nearby: TestTool = {
      description: 'Places near you of a category: cafés, pharmacies, stations, cash machines.',
      parameters: z.object({ category: z.string().describe('Kind of place') }),
    };
    const plan = plannerOver(toolsOf({ route_to: directions, places_nearby: nearby }));
    expect(first(plan('wie komme ich zum Hauptbahnhof?'))?.tool).toBe('route_to');
    expect(first(plan('how do I get to the harbour?'))).toMatchObject({ tool: 'route_to', input: { destination: 'harbour' } });
  });
});

describe('planner: words for kinds of files and jobs, and lyrics in other languages', () => {
  it('takes a pdf or a spreadsheet for a file, an internship for a job, and "letra" for lyrics', () => {
    const jobs: TestTool = {
      description: 'Job openings by title and place.',
      parameters: z.object({ title: z.string().describe('Job title or keywords'), place: z.string().describe('City or region').optional() }),
    };
    const lyrics: TestTool = { description: 'Lyrics of a song.', parameters: z.object({ song: z.string().describe('Song title') }) };
    const quote: TestTool = {
      description: 'Latest price for a stock ticker symbol, with letters and digits as the exchange writes them.',
      parameters: z.object({ symbol: z.string() }),
    };
    const plan = plannerOver(toolsOf({ drive_search: files, job_search: jobs, song_lyrics: lyrics, stock_quote: quote }));
    expect(first(plan('find the Q3 budget spreadsheet'))?.tool).toBe('drive_search');
    expect(first(plan('where did I put the pdf about the lease'))?.tool).toBe('drive_search');
    expect(first(plan('summer internship in marketing'))?.tool).toBe('job_search');
    expect(first(plan('letra de Despacito'))?.tool).toBe('song_lyrics');
  });

  it('does not undo, revert or restore with a tool that only reads', () => {
    const plan = plannerOver(toolsOf({ drive_search: files }));
    const p = plan('undo the last change to my spreadsheet');
    expect(p.stopReason).toBe('no_relevant_tool');
    expect(p.refusals?.[0]?.message).toContain('"undo …" asks to change something');
  });
});

describe('planner: today, for a tool that takes no day', () => {
  it('is the day the tool serves, while another day is still refused', () => {
    const air: TestTool = {
      description: 'Current air quality index and pollutants at a place.',
      parameters: z.object({ place: z.string().describe('City or place') }),
    };
    const plan = plannerOver(toolsOf({ pollution_now: air }));
    expect(first(plan('what is the air quality in Paris today?'))).toMatchObject({ tool: 'pollution_now', input: { place: 'Paris' } });
    expect(plan('what was the air quality in Paris on May 3, 2019?').stopReason).toBe('no_relevant_tool');
  });
});
