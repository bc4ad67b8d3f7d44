import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readQuery, scoreTools } from '../../src/core/planning/ranking/bm25f.ts';
import { indexTools } from '../../src/core/planning/ranking/toolIndex.ts';
import { firstCall as first, plannerOver, toolsOf, type TestTool } from '../support/plannerTools.ts';

// How the planner reads requests beyond their words: stock questions, codes, the day a question
// asks about, what one asks to be reminded of, and names written run together. Tools written for
// these cases (not from the planner's labelled set).

const languages = ['en', 'fr', 'es', 'de', 'it', 'ja'] as const;
const translate: TestTool = {
  description: 'Translate text into another language.',
  parameters: z.object({
    text: z.string().describe('Text to translate'),
    target_language: z.enum(languages).describe('Language to translate into'),
    source_language: z.enum(languages).describe('Language of the text').optional(),
  }),
};
const place = z.object({ place: z.string().describe('City or place') });

describe('planner: language codes by the names people write', () => {
  const plan = plannerOver(toolsOf({ translate, notes: { description: 'Write a note.', parameters: z.object({ text: z.string() }) } }));

  it('fills a language-code enum from the language named, in the request language', () => {
    const into = plan("translate 'good morning' into Spanish");
    expect(first(into)).toMatchObject({ tool: 'translate', input: { text: 'good morning', target_language: 'es' } });
    expect(into.steps[0]?.sources?.['target_language']?.reason).toContain('the language named');
    expect(first(plan("übersetze 'Guten Appetit' ins Italienische"))?.input).toMatchObject({ target_language: 'it' });
    expect(first(plan("traduci 'buon appetito' in tedesco"))?.input).toMatchObject({ target_language: 'de' });
  });

  it('reads "from" as the source, and a code spelt like a function word of the request as that word', () => {
    expect(first(plan("translate 'Guten Tag' from German to Japanese"))?.input).toMatchObject({ source_language: 'de', target_language: 'ja' });
    expect(first(plan("translate from German: 'Guten Tag'"))).toMatchObject({ input: { source_language: 'de' }, missing: [{ name: 'target_language' }] });
    expect(first(plan('traduis « où est la gare » en anglais'))?.input).toEqual({ text: 'où est la gare', target_language: 'en' });
    // English "a" is an article, not "to".
    expect(first(plan("translate a German text into English: 'Guten Tag'"))?.input).toMatchObject({ source_language: 'de', target_language: 'en' });
  });
});

describe('planner: currency codes speak of money', () => {
  const plan = plannerOver(
    toolsOf({
      fx: {
        description: 'Convert an amount of money from one currency to another.',
        parameters: z.object({ amount: z.number(), from_currency: z.string().describe('ISO 4217 code'), to_currency: z.string().describe('ISO 4217 code') }),
      },
      notes: { description: 'Write a note.', parameters: z.object({ text: z.string() }) },
    }),
  );

  it('converts "100 CHF to EUR", which names neither money nor converting', () => {
    expect(first(plan('100 CHF to EUR'))).toMatchObject({ tool: 'fx', input: { amount: 100, from_currency: 'CHF', to_currency: 'EUR' } });
    expect(first(plan('how much is 50 GBP in USD'))).toMatchObject({ tool: 'fx', input: { amount: 50, from_currency: 'GBP', to_currency: 'USD' } });
    // Three capitals that are no currency are not money.
    expect(plan('100 ABC to XYZ').steps).toEqual([]);
  });
});

describe('planner: stock questions', () => {
  it('asks a clock for the time of day, in any of the languages read, while a time of something else does not', () => {
    const plan = plannerOver(
      toolsOf({
        world_clock: { description: 'Current local time in a city.', parameters: z.object({ city: z.string().describe('City name') }) },
        move_meeting: {
          description: 'Move a meeting to a new start time.',
          parameters: z.object({
            title: z.string().describe('Meeting title'),
            start_time: z.string().describe('New start time').meta({ format: 'date-time' }),
          }),
          requiresApproval: true,
        },
      }),
    );
    for (const goal of ['what time is it in Tokyo?', 'que horas são em Lisboa?', 'Wie spät ist es in New York?', 'che ore sono a Sydney?'])
      expect(first(plan(goal))?.tool, goal).toBe('world_clock');
    expect(first(plan('what time is the meeting'))?.tool).not.toBe('world_clock');
  });

  it('reads "what does X mean?" as asking for a definition, "the mean of" still as statistics, and "how do you say X in Y?" as a translation', () => {
    const plan = plannerOver(
      toolsOf({
        define_word: { description: 'Dictionary definition of an English word.', parameters: z.object({ word: z.string().describe('The word') }) },
        describe_numbers: {
          description: 'Mean, median and spread of a list of numbers.',
          parameters: z.object({ numbers: z.array(z.number()).describe('The numbers') }),
        },
        translate,
      }),
    );
    expect(first(plan("what does 'ubiquitous' mean?"))).toMatchObject({ tool: 'define_word', input: { word: 'ubiquitous' } });
    expect(first(plan('que veut dire « flâner » ?'))?.tool).toBe('define_word');
    expect(first(plan('what is the mean of 3, 5 and 9'))?.tool).toBe('describe_numbers');
    expect(first(plan("how do you say 'good night' in Japanese"))).toMatchObject({ tool: 'translate', input: { text: 'good night', target_language: 'ja' } });
  });
});

describe('planner: a question about a day the tool has no room for', () => {
  const current: TestTool = { description: 'Current weather at a place right now: snow, rain, temperature, sky.', parameters: place };
  const outlook: TestTool = {
    description: 'Outlook for the coming days at a place, one line per day: daily highs and lows, chance of precipitation, winds and sunrise.',
    parameters: z.object({
      place: z.string().describe('City or place'),
      day: z.string().describe('Day').meta({ format: 'date' }).optional(),
      days: z.number().int().min(1).max(10).describe('Number of days from today').optional(),
    }),
  };

  it('is refused when no relevant tool takes the day, and names it', () => {
    const plan = plannerOver(toolsOf({ weather_current: current }));
    const p = plan('what was the weather in Paris on July 14, 1990?');
    expect(p.stopReason).toBe('no_relevant_tool');
    expect(p.refusals?.[0]).toMatchObject({ code: 'low_coverage', suggestions: ['weather_current'] });
    expect(p.refusals?.[0]?.message).toContain('"July 14, 1990"');
    // A year alone is a period too.
    expect(plan('what was the weather in Oslo in 1987?').refusals?.[0]?.message).toContain('"in 1987"');
    // Without a day the tool is taken.
    expect(first(plan('what is the weather in Paris?'))?.tool).toBe('weather_current');
  });

  it('goes to a less relevant tool that takes the day', () => {
    const plan = plannerOver(
      toolsOf({
        weather_current: current,
        weather_outlook: outlook,
        // Two tools that match better and take no day either.
        weather_alerts: { description: 'Severe weather alerts at a place: snow, storms, floods.', parameters: place },
        weather_radar: { description: 'Weather radar picture at a place: rain and snow.', parameters: place },
      }),
    );
    const p = plan('is it going to snow in Denver on Friday?');
    expect(first(p)).toMatchObject({ tool: 'weather_outlook', input: { place: 'Denver', day: '2026-03-06' } });
    expect(p.candidates.find((c) => c.selected)?.reason).toContain('takes the day the request asks about ("on Friday")');
    // A day already past, or further ahead than its count of days reaches, is not one a tool of the coming days can take.
    const past = plan('how much snow did Denver get on January 12, 2024?');
    expect(past.stopReason).toBe('no_relevant_tool');
    expect(past.refusals?.[0]?.message).toContain('"January 12, 2024"');
    expect(plan('will it snow in Denver next year?').refusals?.[0]?.message).toContain('"next year"');
    expect(first(plan('will it snow in Denver on March 11?'))).toMatchObject({ tool: 'weather_outlook', input: { day: '2026-03-11' } });
    expect(plan('will it snow in Denver on March 13?').stopReason).toBe('no_relevant_tool'); // 11 days ahead
  });
});

describe('planner: what one asks to be reminded of is content', () => {
  it('asks for a reminder, not for what it reminds of', () => {
    const plan = plannerOver(
      toolsOf({
        reminder_add: {
          description: 'Add a reminder.',
          parameters: z.object({
            text: z.string().describe('What to be reminded of'),
            at: z.string().describe('When').meta({ format: 'date-time' }).optional(),
          }),
        },
        email_send: {
          description: 'Send an e-mail message to a recipient.',
          parameters: z.object({ to: z.string().describe('Recipient'), body: z.string().describe('Text of the message') }),
          requiresApproval: true,
        },
      }),
    );
    for (const goal of [
      'remind me tomorrow at 9 to send the e-mail message to Bob',
      "rappelle-moi vendredi à 14h30 d'envoyer le message",
      'Erinnere mich morgen um 7:30 an die E-Mail an Bob',
    ])
      expect(first(plan(goal))?.tool, goal).toBe('reminder_add');
    expect(first(plan('send an e-mail to Bob saying hi'))?.tool).toBe('email_send');
  });
});

describe('planner: names written run together, and misspellings', () => {
  it('splits a lower-cased name at the verb it starts with, even when its description never says that verb', () => {
    // As an MCP tool named calendar.moveEvent is registered: lower-cased, "." made "_".
    const registry = toolsOf({
      calendar_moveevent: {
        description: 'Reschedule an existing event to a new day.',
        parameters: z.object({
          title: z.string().describe('Title of the event'),
          new_date: z.string().describe('New day').meta({ format: 'date' }).optional(),
        }),
      },
      files_movefile: { description: 'Put a file into another folder.', parameters: z.object({ path: z.string() }) },
    });
    const index = indexTools(registry.sortedDefinitions('p'));
    expect(index.tools.find((t) => t.tool.name === 'calendar_moveevent')?.nameWords).toEqual(['calendar', 'move', 'event']);
    expect(first(plannerOver(registry)("move 'Design review' to Thursday"))).toMatchObject({
      tool: 'calendar_moveevent',
      input: { title: 'Design review', new_date: '2026-03-05' },
    });
  });

  it('weighs a misspelling as the word it stands for: never more than the word itself', () => {
    const registry = toolsOf({
      recipes: { description: 'Recipes by dish; can leave out ingredients.', parameters: z.object({ dish: z.string() }) },
      weather: { description: 'Current weather at a place.', parameters: place },
    });
    const index = indexTools(registry.sortedDefinitions('p'));
    const score = (goal: string, tool: string) => scoreTools(index, readQuery(goal)).find((s) => index.tools[s.position]!.tool.name === tool)?.score ?? 0;
    // "lease" is no tool's word, and one letter from "leave", a common one: it must not count as a rare word would.
    expect(score('lease', 'recipes')).toBeCloseTo(0.8 * score('leave', 'recipes'), 6);
    expect(score('wether', 'weather')).toBeCloseTo(0.8 * score('weather', 'weather'), 6);
  });

  it('scores each clause afresh: nothing of the last one is left behind, not even of one that failed half-way', () => {
    const registry = toolsOf({
      recipes: { description: 'Recipes by dish; can leave out ingredients.', parameters: z.object({ dish: z.string() }) },
      weather: { description: 'Current weather at a place.', parameters: place },
    });
    const index = indexTools(registry.sortedDefinitions('p'));
    const expected = scoreTools(index, readQuery('weather in Paris'));
    expect(scoreTools(index, readQuery('a recipe for the weather'))).not.toEqual(expected);
    // A clause whose second word was never read fails after its first word has scored.
    const read = readQuery('weather');
    const word = read.words[0]!;
    const broken = { ...read, words: [word, { ...word, token: { ...word.token, word: 'unread' }, terms: undefined as never }] };
    expect(() => scoreTools(index, broken)).toThrow(TypeError);
    expect(scoreTools(index, readQuery('weather in Paris'))).toEqual(expected);
  });
});

describe('planner: a question asking how to do something', () => {
  const plan = plannerOver(
    toolsOf({
      delete_file: { description: 'Delete a file by its path.', parameters: z.object({ path: z.string().describe('Path of the file') }) },
      search_files: {
        description: 'Search files by words in their name or content.',
        parameters: z.object({ query: z.string().describe('Words to look for') }),
      },
      weather_now: { description: 'Current weather at a place.', parameters: place },
      convert_length: {
        description: 'Convert a length between units.',
        parameters: z.object({ value: z.number().describe('The length'), from: z.enum(['mi', 'km', 'm', 'ft']), to: z.enum(['mi', 'km', 'm', 'ft']) }),
      },
    }),
  );

  it('is not a reason to run a tool that changes things, nor one that would only be given words of the procedure', () => {
    const asked = plan('how do I delete report.docx');
    expect(asked.stopReason).toBe('no_relevant_tool');
    expect(asked.refusals?.[0]).toMatchObject({ code: 'low_coverage', suggestions: ['delete_file'] });
    expect(asked.refusals?.[0]?.message).toContain('"how do I …" asks how to do something');
    expect(plan('how do I recover a deleted file').stopReason).toBe('no_relevant_tool');
    // Told to, the tool runs.
    expect(first(plan('delete report.docx'))?.tool).toBe('delete_file');
  });

  it('runs a tool that only reads when the question states what to work on, or asks how to look something up', () => {
    expect(first(plan('how do I convert 5 miles to km'))).toMatchObject({ tool: 'convert_length', input: { value: 5 } });
    expect(first(plan('how can I check the weather in Paris'))).toMatchObject({ tool: 'weather_now', input: { place: 'Paris' } });
    expect(first(plan('how can I find the budget files'))?.tool).toBe('search_files');
  });
});

describe('planner: words that frame a request', () => {
  const plan = plannerOver(
    toolsOf({
      account_balance: { description: 'Balance of a bank account.', parameters: z.object({}) },
      list_events: {
        description: 'List the calendar events of a day or of the next few days.',
        parameters: z.object({ day: z.string().describe('Day').meta({ format: 'date' }), days: z.number().int().describe('How many days').optional() }),
      },
    }),
  );

  it('asks for date arithmetic (a weekday, a count of days), not for calendar entries', () => {
    for (const goal of ['what day of the week was July 4, 1976?', 'wie viele Tage hat der Februar 2028?', 'quel jour de la semaine tombe le 14 juillet 2030 ?'])
      expect(plan(goal).stopReason, goal).toBe('no_relevant_tool');
    expect(first(plan('what is on my calendar on Friday?'))).toMatchObject({ tool: 'list_events', input: { day: '2026-03-06' } });
    expect(first(plan('list my events for the next 3 days'))?.tool).toBe('list_events');
  });

  it('reads "tell me" as asking, in the six languages, not as what is asked about', () => {
    expect(plan('me conta uma piada').stopReason).toBe('no_relevant_tool'); // "conta" is no account here
    expect(first(plan('tell me the balance of my account'))?.tool).toBe('account_balance');
  });
});

describe('planner: a place is not a thing of one’s own', () => {
  const plan = plannerOver(
    toolsOf({
      hotel_rates: {
        description: 'Nightly rates of hotels in a city.',
        parameters: z.object({ city: z.string().describe('City to stay in') }),
      },
    }),
  );

  it('does not take "my outfit" for a city, while "my office" is a place', () => {
    expect(plan('rate my outfit').stopReason).toBe('no_relevant_tool');
    expect(first(plan('hotel rates near my office'))).toMatchObject({ tool: 'hotel_rates', input: { city: 'office' } });
    expect(first(plan('hotel rates in Lisbon'))).toMatchObject({ tool: 'hotel_rates', input: { city: 'Lisbon' } });
  });
});

describe('planner: a request to change something', () => {
  const flight: TestTool = {
    description: 'Status of a flight: gate, delay, departure and arrival.',
    parameters: z.object({ flight: z.string().describe('Flight number') }),
  };

  it('is not served by a tool that only reads, and goes to one that changes things', () => {
    const plan = plannerOver(toolsOf({ get_flight_status: flight }));
    const p = plan('set my status to away');
    expect(p.stopReason).toBe('no_relevant_tool');
    expect(p.refusals?.[0]).toMatchObject({ code: 'low_coverage', suggestions: ['get_flight_status'] });
    expect(p.refusals?.[0]?.message).toContain('only reads, and "set …" asks to change something');
    expect(first(plan('status of flight UA 88'))?.tool).toBe('get_flight_status');
    // A tool named for the verb does it.
    const viewer: TestTool = {
      description: 'Show the contents of a file.',
      parameters: z.object({ path: z.string().describe('File path') }),
      idempotent: true,
    };
    expect(first(plannerOver(toolsOf({ open_file: viewer }))('open report.pdf'))).toMatchObject({ tool: 'open_file', input: { path: 'report.pdf' } });
    const presence: TestTool = {
      description: 'Set your chat status: available, away or busy.',
      parameters: z.object({ status: z.enum(['available', 'away', 'busy']).describe('Status') }),
    };
    expect(first(plannerOver(toolsOf({ get_flight_status: flight, set_presence: presence }))('set my status to away'))).toMatchObject({
      tool: 'set_presence',
      input: { status: 'away' },
    });
  });
});

describe('planner: a verb any tool may open with', () => {
  it('is not enough evidence when the request names something the tool does not match', () => {
    const plan = plannerOver(
      toolsOf({
        find_nearby: {
          description: 'Places nearby: restaurants, pharmacies, cafés and shops.',
          parameters: z.object({ category: z.string().describe('Kind of place') }),
        },
      }),
    );
    const p = plan('find me a girlfriend');
    expect(p.stopReason).toBe('no_relevant_tool');
    expect(p.refusals?.[0]?.message).toContain('matched only "find", which any tool may open with');
    expect(first(plan('find a pharmacy'))?.tool).toBe('find_nearby');
  });
});

describe('planner: what a request is about', () => {
  const prices: TestTool = {
    description: 'Compare the prices of a product across stores.',
    parameters: z.object({ product: z.string().describe('Product') }),
  };
  const balance: TestTool = {
    description: 'Balance of a bank account: checking or savings.',
    parameters: z.object({ account: z.enum(['checking', 'savings']).describe('Account') }),
  };

  it("is what belongs to a possessor, and advice asked with 'how much should I' is not a reading", () => {
    const plan = plannerOver(toolsOf({ compare_prices: prices, get_balance: balance }));
    expect(plan("what are the store's opening hours").refusals?.[0]?.message).toContain('matched only "store\'s"');
    expect(first(plan('compare prices of the Kindle across stores'))?.tool).toBe('compare_prices');
    expect(plan('how much should I save for retirement').refusals?.[0]?.message).toContain('"how much should I …" asks how to do something');
    expect(first(plan('how much is in my savings account'))).toMatchObject({ tool: 'get_balance', input: { account: 'savings' } });
  });
});

describe('planner: arithmetic written out', () => {
  const bmi: TestTool = {
    description: 'Calculate the body mass index from weight and height.',
    parameters: z.object({ weight_kg: z.number().describe('Weight in kg'), height_cm: z.number().describe('Height in cm') }),
  };

  it('is served by a tool that takes it or does its operation, not by one that only has numbers to fill', () => {
    const plan = plannerOver(toolsOf({ calculate_bmi: bmi }));
    const p = plan("what's 2 + 2");
    expect(p.stopReason).toBe('no_relevant_tool');
    expect(p.refusals?.[0]?.message).toContain('matched only the arithmetic "2 + 2"');
    expect(first(plan('calculate my BMI: 70 kg and 175 cm'))?.tool).toBe('calculate_bmi');
    const sum: TestTool = { description: 'Calculate the sum of two numbers.', parameters: z.object({ a: z.number(), b: z.number() }) };
    expect(first(plannerOver(toolsOf({ add: sum }))("what's 2 + 3"))).toMatchObject({ tool: 'add', input: { a: 2, b: 3 } });
    const calculator: TestTool = { description: 'Calculate arithmetic.', parameters: z.object({ expression: z.string().describe('Arithmetic') }) };
    expect(first(plannerOver(toolsOf({ calculate_bmi: bmi, calculator }))("what's 2 + 2"))).toMatchObject({
      tool: 'calculator',
      input: { expression: '2 + 2' },
    });
  });
});

describe('planner: numbers and the range a parameter declares', () => {
  it('does not fill a parameter with a number outside its minimum and maximum', () => {
    const plan = plannerOver(
      toolsOf({
        plan_meals: {
          description: 'Generate a meal plan for a number of days.',
          parameters: z.object({ days: z.number().int().min(1).max(28).describe('Days to plan') }),
        },
      }),
    );
    expect(first(plan('plan meals for 7 days'))).toMatchObject({ tool: 'plan_meals', input: { days: 7 } });
    const long = plan('plan meals for 5000 days');
    expect(long.steps).toEqual([]);
    expect(long.inputRequired?.input).toEqual({});
  });
});
