import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { splitClauses } from '../../src/core/index.ts';
import { guessLanguage } from '../../src/core/planning/ranking/stem.ts';
import { identifierWords, tokenize } from '../../src/core/planning/ranking/tokens.ts';
import { segment } from '../../src/core/planning/ranking/toolIndex.ts';
import { clockTimes, dateMentions } from '../../src/core/planning/slots/dates.ts';
import { fillArguments, type FillContext } from '../../src/core/planning/slots/fill.ts';
import { durations, numericMentions, parseDigits } from '../../src/core/planning/slots/numbers.ts';
import { textMentions } from '../../src/core/planning/slots/strings.ts';

const NOW = Date.UTC(2026, 2, 2, 9, 0); // Monday 2 March 2026, 09:00 UTC

function fill(schema: z.ZodType, clause: string, extra: Partial<FillContext> = {}) {
  const inputSchema = z.toJSONSchema(schema) as Record<string, unknown>;
  const language = guessLanguage(clause, tokenize(clause));
  return fillArguments(inputSchema, { clause, offset: 0, language, now: NOW, toolWords: new Set(), ...extra });
}

describe('words and names', () => {
  it('splits identifiers and run-together names, and keeps contractions whole', () => {
    expect(identifierWords('getHTTPStatus_v2.check')).toEqual(['get', 'http', 'status', 'v', '2', 'check']);
    expect(segment('createevent', new Set(['create', 'an', 'event']))).toEqual(['create', 'event']);
    expect(segment('weather', new Set(['we', 'at', 'her']))).toEqual(['weather']);
    expect(tokenize("I'd like it, don't").map((t) => t.word)).toEqual(["i'd", 'like', 'it', "don't"]);
    expect(tokenize("qualité de l'air").map((t) => t.word)).toEqual(['qualite', 'de', 'air']);
    expect(tokenize("quality of l'air").map((t) => t.word)).toEqual(['quality', 'of', 'air']);
  });

  it('guesses the language from function words and letters', () => {
    expect(guessLanguage('quel temps fait-il à Lyon', tokenize('quel temps fait-il à Lyon'))).toBe('fr');
    expect(guessLanguage('¿cuánto dinero tengo en la cuenta?', tokenize('¿cuánto dinero tengo en la cuenta?'))).toBe('es');
    expect(guessLanguage('wie ist das Wetter in München', tokenize('wie ist das Wetter in München'))).toBe('de');
    expect(guessLanguage('book a flight', tokenize('book a flight'))).toBe('en');
  });

  it('splits clauses at sequencing words in six languages, never inside quotes', () => {
    expect(splitClauses('add 2 and 3 puis double it')).toEqual(['add 2 and 3 puis double it']);
    expect(splitClauses('ajoute 2 et 3 ensuite multiplie par 4')).toEqual(['ajoute 2 et 3', 'multiplie par 4']);
    expect(splitClauses("echo 'a then b' then add 1 and 2")).toEqual(["echo 'a then b'", 'add 1 and 2']);
  });
});

describe('typed extractors', () => {
  it('reads numbers as each language writes them', () => {
    expect(parseDigits('1,000', 'en')).toBe(1000);
    expect(parseDigits('1.000,5', 'de')).toBe(1000.5);
    expect(parseDigits('3,5', 'fr')).toBe(3.5);
    expect(parseDigits('1,5', 'en')).toBeUndefined();
    expect(numericMentions('tip 18% on $85.50 for twenty five people', 'en').map((m) => [m.kind, m.value, m.unit])).toEqual([
      ['percent', 18, undefined],
      ['money', 85.5, 'USD'],
      ['number', 25, 'people'],
    ]);
    expect(numericMentions('un prêt de 200 000 € sur 20 ans', 'fr').map((m) => m.value)).toEqual([200000, 20]);
  });

  it('adds up durations', () => {
    const text = 'start a 1 hour 30 minute countdown';
    expect(durations(text, numericMentions(text, 'en')).map((d) => d.seconds)).toEqual([5400]);
  });

  it('reads dates and times relative to the reference instant, in UTC', () => {
    const kinds = (text: string, language: 'en' | 'fr' = 'en') => dateMentions(text, language, NOW).map((m) => `${m.kind}:${m.value}`);
    expect(kinds('tomorrow at 19:00')).toEqual(['date:2026-03-03', 'time:19:00', 'datetime:2026-03-03T19:00:00']);
    expect(kinds('the 15th of April, 2023')).toEqual(['date:2023-04-15']);
    expect(kinds('transactions since February 1')).toEqual(['date:2026-02-01']);
    expect(kinds('le 12 mai', 'fr')).toEqual(['date:2026-05-12']);
    // "the week" of "what day of the week" is no week.
    expect(kinds('what day of the week was July 4, 1976?')).toEqual(['date:1976-07-04']);
    // A number after a comma is the next thing, not a year or an hour.
    expect(kinds('le 10 mars, 2 nuits', 'fr')).toEqual(['date:2026-03-10']);
    expect(dateMentions('tomorrow', 'en', undefined)).toEqual([]);
    expect(clockTimes('meet at 19:00 or 7.30pm, 10h or 8 Uhr').map((m) => m.value)).toEqual(['19:00', '19:30', '10:00', '08:00']);
    // Halves and quarters in words after an hour, in the other languages; not a quantity ("3 y media tazas").
    const words = (text: string) => clockTimes(text).map((m) => m.value);
    expect(['a las 7 y media', 'às 8 e meia', 'alle 9 e mezza', 'à 7h et quart', 'a las 8 menos cuarto'].map(words)).toEqual([
      ['07:30'],
      ['08:30'],
      ['09:30'],
      ['07:15'],
      ['07:45'],
    ]);
    expect(words('añade 3 y media tazas de harina')).toEqual([]);
  });

  it('finds quoted text but not apostrophes inside words, and URLs, e-mails and paths', () => {
    expect(textMentions("I'd like 'Focus' and don't stop").map((m) => m.value)).toEqual(['Focus']);
    expect(textMentions('mail ann@x.io the file /docs/a.md from https://x.io/p').map((m) => [m.kind, m.value])).toEqual([
      ['email', 'ann@x.io'],
      ['path', '/docs/a.md'],
      ['url', 'https://x.io/p'],
    ]);
  });
});

describe('filling a schema', () => {
  it('fills places from "from … to …" and dates in order, leaving optional ones out', () => {
    const schema = z.object({
      origin: z.string(),
      destination: z.string(),
      departure_date: z.string().meta({ format: 'date' }),
      return_date: z.string().meta({ format: 'date' }).optional(),
    });
    const { input, missing } = fill(schema, 'flights from New York to Paris on May 3');
    expect(input).toEqual({ origin: 'New York', destination: 'Paris', departure_date: '2026-05-03' });
    expect(missing).toEqual([]);
  });

  it('reads lists, booleans with negation, enums by closeness and units', () => {
    const schema = z.object({
      numbers: z.array(z.number()),
      shuffle: z.boolean().optional(),
      mode: z.enum(['metric', 'imperial']).optional(),
    });
    expect(fill(schema, "stats of 3, 7 and 12, don't shuffle, in metrik").input).toEqual({ numbers: [3, 7, 12], shuffle: false, mode: 'metric' });
    const units = z.object({ value: z.number(), from_unit: z.enum(['ft', 'cm', 'in']), to_unit: z.enum(['ft', 'cm', 'in']) });
    expect(fill(units, '6 feet in centimeters').input).toEqual({ value: 6, from_unit: 'ft', to_unit: 'cm' });
    // A clipped form of four letters or more; shorter ones are too ambiguous.
    const section = z.object({ section: z.enum(['world', 'science', 'technology', 'sports']).optional() });
    const tech = fill(section, 'latest tech news');
    expect(tech.input).toEqual({ section: 'technology' });
    expect(tech.sources['section']!.reason).toContain('shortened');
    expect(fill(section, 'sci news').input).toEqual({});
    // A word for every kind of file names none of them.
    const files = z.object({ query: z.string(), file_type: z.enum(['pdf', 'docx', 'xlsx', 'any']).optional() });
    expect(fill(files, 'find the file about taxes').input['file_type']).toBeUndefined();
    expect(fill(files, 'find the pdf about taxes').input['file_type']).toBe('pdf');
  });

  it('ends a stay of N nights N days after the day it starts, and counts no guests from it', () => {
    const stay = z.object({
      city: z.string(),
      check_in: z.string().meta({ format: 'date' }),
      check_out: z.string().meta({ format: 'date' }),
      guests: z.number().int().optional(),
    });
    const filled = fill(stay, 'a hotel in Rome from May 3 for 4 nights');
    expect(filled.input).toEqual({ city: 'Rome', check_in: '2026-05-03', check_out: '2026-05-07' });
    expect(filled.sources['check_out']!.reason).toContain('"4 nights" after 2026-05-03');
    expect(fill(stay, 'hotel en Madrid el 10 de marzo, 3 noches').input).toMatchObject({ check_in: '2026-03-10', check_out: '2026-03-13' });
  });

  it('converts durations to the parameter unit and keeps a year out of a count', () => {
    expect(fill(z.object({ duration_seconds: z.number().int() }), 'a timer of 5 minutes').input).toEqual({ duration_seconds: 300 });
    expect(fill(z.object({ count: z.number().int(), year: z.number().int() }), 'top 5 films of 1994').input).toEqual({ count: 5, year: 1994 });
  });

  it('records the span of the clause and the reason for each value, offset into the goal', () => {
    const { sources } = fill(z.object({ to: z.string().describe('recipient'), text: z.string() }), 'send a message to bob saying hi', { offset: 10 });
    expect(sources['to']).toMatchObject({ start: 28, end: 31 });
    expect(sources['text']!.reason).toContain('saying');
  });

  it('reports required parameters it cannot find instead of guessing', () => {
    const { input, missing } = fill(z.object({ text: z.string() }), 'count the words in the README', { toolWords: new Set(['count', 'words']) });
    expect(input).toEqual({});
    expect(missing.map((p) => p.name)).toEqual(['text']);
  });
});

describe('filling a schema: what a request writes in its own shape', () => {
  it('gives a phone number to a parameter that holds one, and runs free text on over numbers no other parameter took', () => {
    const sms = z.object({ recipient: z.string().describe('Phone number or contact name'), message: z.string().describe('Text to send') });
    expect(fill(sms, "text 555-0142 that I'm running 10 minutes late").input).toEqual({ recipient: '555-0142', message: "I'm running 10 minutes late" });
    expect(fill(sms, "sms +44 7700 900123 'see you at 8'").input).toEqual({ recipient: '+44 7700 900123', message: 'see you at 8' });
    // A date and the digits of an account number are not phone numbers.
    const contact = z.object({ name: z.string(), phone: z.string().describe('Phone number').optional() });
    expect(fill(contact, 'save a new contact: Laura Chen, 415-555-0199').input).toEqual({ name: 'Laura Chen', phone: '415-555-0199' });
    expect(fill(contact, 'add a contact called Ana on 2026-03-11').input['phone']).toBeUndefined();
  });

  it('gives the name written before a word that chose the tool to the one name parameter left', () => {
    const bill = z.object({ payee: z.string().describe('Biller name'), amount: z.number() });
    const paid = fill(bill, 'pay my Comcast bill of $79.99', { toolWords: new Set(['pay', 'bill']) });
    expect(paid.input).toEqual({ payee: 'Comcast', amount: 79.99 });
    expect(paid.sources['payee']!.reason).toContain('the name before "bill"');
    // Without a capitalised name there, nothing is guessed.
    expect(fill(bill, 'pay my phone bill of $20', { toolWords: new Set(['pay', 'bill']) }).input['payee']).toBeUndefined();
  });

  it('takes for a code only words with digits or all in capitals', () => {
    const cancel = z.object({ confirmation_code: z.string().describe('Six-character booking reference') });
    const words = { toolWords: new Set(['cancel']) };
    expect(fill(cancel, 'cancel XK7P2Q', words).input).toEqual({ confirmation_code: 'XK7P2Q' });
    expect(fill(cancel, 'cancel UA 88', words).input).toEqual({ confirmation_code: 'UA 88' });
    expect(fill(cancel, 'cancel the Budget sync meeting', words).missing.map((p) => p.name)).toEqual(['confirmation_code']);
  });

  it('gives a currency parameter only currency words and ISO 4217 codes', () => {
    const exchange = z.object({ amount: z.number().optional(), from_currency: z.string(), to_currency: z.string() });
    expect(fill(exchange, '250 NOK to ISK').input).toEqual({ amount: 250, from_currency: 'NOK', to_currency: 'ISK' });
    expect(fill(exchange, 'convert 40 euros into dollars').input).toEqual({ amount: 40, from_currency: 'EUR', to_currency: 'USD' });
    const pdf = fill(exchange, 'convert this PDF to Word');
    expect(pdf.input).toEqual({});
    expect(pdf.missing.map((p) => p.name)).toEqual(['from_currency', 'to_currency']);
  });

  it('reads a channel written as #name, and the text after a colon that is not a clock time', () => {
    const post = z.object({ channel: z.string(), text: z.string() });
    expect(fill(post, "post 'deploy finished' in #eng").input).toEqual({ channel: '#eng', text: 'deploy finished' });
    const reminder = z.object({ text: z.string().describe('What to be reminded of'), at: z.string().describe('When').optional() });
    expect(fill(reminder, 'set a reminder for 9:15am: renew passport').input['text']).toBe('renew passport');
    expect(fill(reminder, 'set a reminder for tomorrow to submit the report', { toolWords: new Set(['reminder']) }).input['text']).toBe('submit the report');
    // A question after the colon is the request: neither it nor the label before the colon is a title, while a message takes it.
    const cancel = z.object({ title: z.string().describe('Event title'), day: z.string().meta({ format: 'date' }) });
    expect(fill(cancel, 'calander: what do I have on wednesday', { toolWords: new Set(['what', 'do', 'i', 'have', 'on']) }).input).toEqual({
      day: '2026-03-04',
    });
    expect(fill(cancel, 'cancel on Friday: Dentist', { toolWords: new Set(['cancel']) }).input).toEqual({ day: '2026-03-06', title: 'Dentist' });
    expect(fill(post, 'post in #eng: are we shipping today?').input).toEqual({ channel: '#eng', text: 'are we shipping today?' });
  });

  it('leaves the verb a request starts with, function words and possessives out of names, and codes without capitals or digits out of identifiers', () => {
    const cart = z.object({ product: z.string(), size: z.string().optional() });
    expect(fill(cart, 'put the hoodie in my basket').input['product']).toBe('hoodie');
    expect(
      fill(z.object({ name: z.string().describe('Contact name') }), "what's Maria's phone number?", { toolWords: new Set(['phone', 'number']) }).input,
    ).toEqual({ name: 'Maria' });
    expect(fill(z.object({ query: z.string() }), 'such nach einem Staubsauger').input).toEqual({ query: 'Staubsauger' });
    const quote = z.object({ symbol: z.string().describe('Ticker symbol') });
    expect(fill(quote, 'qual é a cotação da ação PETR4?').input).toEqual({ symbol: 'PETR4' });
    expect(fill(quote, 'what is the code of the gym').missing.map((p) => p.name)).toEqual(['symbol']);
  });

  it('takes each file of a list of file names into an array', () => {
    const zip = z.object({ paths: z.array(z.string()), archive_name: z.string().optional() });
    expect(fill(zip, 'make an archive of photo1.jpg, photo2.jpg').input['paths']).toEqual(['photo1.jpg', 'photo2.jpg']);
  });
});

describe('filling a schema: names around the words that chose the tool', () => {
  it('keeps a value that ends in its parameter’s noun, a capitalised name that holds the tool’s words, and the noun written before a name', () => {
    const lights = z.object({ room: z.string().describe('Room name'), on: z.boolean().describe('true to switch on, false to switch off') });
    const words = new Set(['switch', 'off', 'lights', 'living', 'room']);
    expect(fill(lights, 'switch off the lights in the living room', { toolWords: words }).input).toEqual({ on: false, room: 'living room' });
    const hotel = z.object({ hotel_name: z.string().describe('Hotel to book') });
    expect(fill(hotel, 'Book the Hotel Artemide', { toolWords: new Set(['book', 'hotel']) }).input).toEqual({ hotel_name: 'Hotel Artemide' });
  });

  it('reads a title after "for" or "to see", and a place after "in" before one after "for"', () => {
    const tickets = z.object({ movie: z.string().describe('Movie title'), tickets: z.number().int().optional() });
    expect(fill(tickets, 'buy 2 tickets for Dune', { toolWords: new Set(['buy', 'tickets']) }).input).toEqual({ movie: 'Dune', tickets: 2 });
    expect(fill(tickets, 'get me 4 tickets to see Wicked', { toolWords: new Set(['tickets']) }).input).toEqual({ movie: 'Wicked', tickets: 4 });
    const showtimes = z.object({ movie: z.string().describe('Movie title'), city: z.string().describe('City') });
    expect(fill(showtimes, 'showtimes for Oppenheimer in Chicago', { toolWords: new Set(['showtimes']) }).input).toEqual({
      movie: 'Oppenheimer',
      city: 'Chicago',
    });
  });

  it('ends a place written in lower case at a day word, spelt out or shortened, for a tool that takes no date', () => {
    const place = z.object({ location: z.string().describe('City or place') });
    for (const day of ['tomorrow', 'tmrw', 'tonite'])
      expect(fill(place, `whats the wether in dublin ${day}`, { toolWords: new Set(['wether']) }).input).toEqual({ location: 'dublin' });
  });
});

describe('dates far into a long clause', () => {
  it('reads a date or a relative time the same wherever it stands in the clause', () => {
    const long = 'any nonstop flights from London to New York with a window seat and extra legroom on the 15th of April, 2026?';
    expect(
      dateMentions(long, 'en', NOW)
        .filter((m) => m.kind === 'date')
        .map((m) => [m.value, long.slice(m.start, m.end)]),
    ).toEqual([['2026-04-15', '15th of April, 2026']]);
    const later = 'please remind me about the quarterly report for the finance team in 2 hours';
    expect(dateMentions(later, 'en', NOW).find((m) => m.kind === 'time')?.value).toBe('11:00');
    const range = 'book a quiet hotel room close to the old town for two guests from May 3 to May 7';
    expect(
      dateMentions(range, 'en', NOW)
        .filter((m) => m.kind === 'date')
        .map((m) => m.value),
    ).toEqual(['2026-05-03', '2026-05-07']);
  });
});

describe('filling a schema: file names, shares and German nouns', () => {
  it('gives the file name written after "to" or "into" to a parameter that names a file', () => {
    const rename = z.object({ path: z.string(), new_name: z.string() });
    expect(fill(rename, 'rename report.docx to report-final.docx').input).toEqual({ path: 'report.docx', new_name: 'report-final.docx' });
    const zip = z.object({ paths: z.array(z.string()), archive_name: z.string().optional() });
    expect(fill(zip, 'zip a.txt, b.txt and c.txt into bundle.zip').input).toEqual({ paths: ['a.txt', 'b.txt', 'c.txt'], archive_name: 'bundle.zip' });
  });

  it('gives a share written with "%" to a parameter described in percent', () => {
    const lights = z.object({ room: z.string(), brightness: z.number().int().min(0).max(100).describe('Brightness in percent').optional() });
    expect(fill(lights, 'dim the bedroom lights to 30%', { toolWords: new Set(['lights']) }).input).toEqual({ room: 'bedroom', brightness: 30 });
  });

  it('reads German nouns, all capitalised, as words rather than names', () => {
    const files = z.object({ query: z.string().describe('Words in the file name or content') });
    expect(fill(files, 'such die Datei mit dem Namen Steuererklärung', { toolWords: new Set(['such', 'datei', 'namen']) }).input).toEqual({
      query: 'Steuererklärung',
    });
  });
});

describe('filling a schema: amounts, ratings and synonyms of a flag', () => {
  it('does not read an amount of money as a time, and reads "4-star" as four stars', () => {
    const hotels = z.object({
      city: z.string(),
      max_price: z.number().describe('Highest nightly rate').optional(),
      min_stars: z.number().int().describe('Lowest star rating').optional(),
    });
    expect(fill(hotels, '4-star hotels in Rome under $150 a night', { toolWords: new Set(['hotels']) }).input).toEqual({
      city: 'Rome',
      max_price: 150,
      min_stars: 4,
    });
    expect(dateMentions('under $150 a night', 'en', NOW)).toEqual([]);
  });

  it('sets a flag from a word of the same meaning ("direct only" for nonstop)', () => {
    const flights = z.object({ origin: z.string(), destination: z.string(), nonstop: z.boolean().describe('Only direct flights').optional() });
    expect(fill(flights, 'flights Dublin to Berlin, direct only', { toolWords: new Set(['flights']) }).input).toEqual({
      origin: 'Dublin',
      destination: 'Berlin',
      nonstop: true,
    });
  });
});
