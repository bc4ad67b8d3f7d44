import { describe, expect, it } from 'vitest';
import { ToolNameSchema } from '../../src/core/index.ts';
import { toolParameters, zodFromJsonSchema } from '../../src/mcp/jsonSchema.ts';
import { registeredName } from '../../src/mcp/register.ts';
import {
  FEATURE_TAGS,
  LANGUAGES,
  REFERENCE_DATE,
  REQUESTS,
  TOOLS,
  checkArguments,
  isAnyOf,
  requestsOf,
  splitOf,
  valueMatches,
  type ArgValue,
  type ParamSchema,
} from '../fixtures/plannerSet/index.ts';
import { TIME_PATTERN } from '../fixtures/plannerSet/schema.ts';

// The integrity of the planner's labelled set: what it promises about itself. How well a
// planner does on it is the benchmark's business (`npm run bench -- planner`), not this file's.

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));
const answerable = REQUESTS.filter((request) => request.tool !== null);

/** Each value a label accepts, written as its schema wants it (times and date-times in full RFC 3339). */
function canonicalValues(value: ArgValue, schema: ParamSchema): unknown[] {
  if (isAnyOf(value)) return value.anyOf.flatMap((option) => canonicalValues(option, schema));
  if (typeof value === 'string' && schema.format === 'time') return [`${value}:00Z`];
  if (typeof value === 'string' && schema.format === 'date-time') return [`${value}:00Z`];
  return [value];
}

describe('planner set: size and coverage', () => {
  it('has at least 70 tools from at least 12 domains, and 450 requests', () => {
    expect(TOOLS.length).toBeGreaterThanOrEqual(70);
    expect(new Set(TOOLS.map((tool) => tool.domain)).size).toBeGreaterThanOrEqual(12);
    expect(REQUESTS.length).toBeGreaterThanOrEqual(450);
  });

  it('has at least 70 requests no tool serves and 40 not in English', () => {
    expect(REQUESTS.filter((request) => request.tool === null).length).toBeGreaterThanOrEqual(70);
    expect(REQUESTS.filter((request) => !request.tags.includes('en')).length).toBeGreaterThanOrEqual(40);
    for (const language of LANGUAGES)
      expect(
        REQUESTS.some((request) => request.tags.includes(language)),
        language,
      ).toBe(true);
  });

  it('asks for every tool at least twice', () => {
    for (const tool of TOOLS) expect(answerable.filter((request) => request.tool === tool.name).length, tool.name).toBeGreaterThanOrEqual(2);
  });
});

describe('planner set: tools', () => {
  it('names each tool once, and each keeps a distinct valid name once registered the way MCP tools are', () => {
    expect(new Set(TOOLS.map((tool) => tool.name)).size).toBe(TOOLS.length);
    const registered = TOOLS.map((tool) => registeredName({ name: 'set', prefix: '' }, tool.name));
    expect(new Set(registered).size).toBe(TOOLS.length);
    for (const name of registered) expect(ToolNameSchema.safeParse(name).success, name).toBe(true);
  });

  it('gives every tool an object schema the MCP path accepts, whose required parameters exist', () => {
    for (const tool of TOOLS) {
      expect(() => toolParameters(tool.parameters, tool.name)).not.toThrow();
      for (const name of tool.parameters.required ?? []) expect(tool.parameters.properties, `${tool.name}.${name}`).toHaveProperty(name);
      for (const [name, schema] of Object.entries(tool.parameters.properties)) expect(schema.description ?? '', `${tool.name}.${name}`).not.toBe('');
    }
  });

  it('writes aliases and examples as non-empty text', () => {
    for (const tool of TOOLS) for (const text of [...(tool.aliases ?? []), ...(tool.examples ?? [])]) expect(text.trim(), tool.name).not.toBe('');
    expect(TOOLS.filter((tool) => tool.examples?.length).length).toBeGreaterThanOrEqual(5);
  });
});

describe('planner set: labels', () => {
  it('gives each request a unique id and text', () => {
    expect(new Set(REQUESTS.map((request) => request.id)).size).toBe(REQUESTS.length);
    expect(new Set(REQUESTS.map((request) => request.text.trim().toLowerCase())).size).toBe(REQUESTS.length);
  });

  it('labels each request with a tool of the set, or none and no arguments', () => {
    for (const request of REQUESTS) {
      if (request.tool === null) expect(request.args, request.id).toEqual({});
      else expect(byName.has(request.tool), `${request.id}: ${request.tool}`).toBe(true);
    }
  });

  it('labels only parameters the tool has, with values its schema accepts', () => {
    for (const request of answerable) {
      const tool = byName.get(request.tool!)!;
      for (const [name, value] of Object.entries(request.args)) {
        const schema = tool.parameters.properties[name];
        expect(schema, `${request.id}: ${tool.name} has no parameter ${name}`).toBeDefined();
        const check = zodFromJsonSchema(schema);
        for (const candidate of canonicalValues(value, schema!)) {
          expect(check.safeParse(candidate).success, `${request.id}: ${name} = ${JSON.stringify(candidate)}`).toBe(true);
        }
      }
      for (const name of request.ordered ?? []) expect(tool.parameters.properties[name]?.type, `${request.id}: ordered ${name}`).toBe('array');
    }
  });

  it('tags each request with exactly one language and known features, refusals exactly when no tool serves it', () => {
    const known = new Set<string>([...LANGUAGES, ...FEATURE_TAGS]);
    for (const request of REQUESTS) {
      expect(
        request.tags.filter((tag) => (LANGUAGES as readonly string[]).includes(tag)),
        request.id,
      ).toHaveLength(1);
      for (const tag of request.tags) expect(known.has(tag), `${request.id}: ${tag}`).toBe(true);
      expect(request.tags.includes('refusal'), request.id).toBe(request.tool === null);
      if (request.tags.includes('missing_required')) {
        const required = byName.get(request.tool!)!.parameters.required ?? [];
        expect(
          required.some((name) => !(name in request.args)),
          request.id,
        ).toBe(true);
      }
    }
  });

  it('writes labelled dates and times in ISO form, relative to a Monday reference date', () => {
    expect(new Date(REFERENCE_DATE).getUTCDay()).toBe(1);
    for (const request of answerable) {
      const properties = byName.get(request.tool!)!.parameters.properties;
      for (const [name, value] of Object.entries(request.args)) {
        const schema = properties[name]!;
        const texts = canonicalValues(value, { type: 'string' }).filter((v): v is string => typeof v === 'string');
        if (schema.format === 'date') for (const text of texts) expect(text, request.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        if (schema.format === 'date-time') for (const text of texts) expect(text, request.id).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
        if (schema.format === 'time' || schema.pattern === TIME_PATTERN) for (const text of texts) expect(text, request.id).toMatch(/^\d{2}:\d{2}$/);
      }
    }
  });
});

describe('planner set: dev and test', () => {
  it('puts about 60 % of the requests in dev, with answerable and unanswerable requests on both sides', () => {
    const dev = requestsOf('dev');
    const test = requestsOf('test');
    expect(dev.length + test.length).toBe(REQUESTS.length);
    expect(dev.length / REQUESTS.length).toBeGreaterThan(0.5);
    expect(dev.length / REQUESTS.length).toBeLessThan(0.7);
    for (const side of [dev, test]) {
      expect(side.filter((request) => request.tool === null).length).toBeGreaterThanOrEqual(20);
      expect(side.filter((request) => !request.tags.includes('en')).length).toBeGreaterThanOrEqual(15);
    }
  });

  it('decides the side from the text alone, so adding or reordering requests moves none', () => {
    // Pinned: a change to the hash or the threshold would move requests between the sides.
    expect(splitOf({ text: 'Find flights from Boston to Denver on May 3' })).toBe('dev');
    expect(splitOf({ text: 'Je cherche un vol de Paris à Montréal le 12 mai' })).toBe('dev');
    expect(splitOf({ text: 'serch flihgts madrid to rome on april 10' })).toBe('test');
    expect(splitOf({ text: 'Book flight LH 400 on March 18' })).toBe('test');
    expect(requestsOf('dev').map((request) => request.id)).toEqual(
      REQUESTS.filter((request) => splitOf({ text: request.text }) === 'dev').map((request) => request.id),
    );
  });
});

describe('planner set: comparison rules', () => {
  const time: ParamSchema = { type: 'string', pattern: TIME_PATTERN };
  const stamp: ParamSchema = { type: 'string', format: 'date-time' };
  const words: ParamSchema = { type: 'array', items: { type: 'string' } };

  it('compares strings loosely but accents strictly, numbers exactly and never as strings', () => {
    expect(valueMatches('New York', '  new   york. ', { type: 'string' })).toBe(true);
    expect(valueMatches('Montréal', 'Montreal', { type: 'string' })).toBe(false);
    expect(valueMatches(1250.5, 1250.5, { type: 'number' })).toBe(true);
    expect(valueMatches(1250.5, '1250.5', { type: 'number' })).toBe(false);
    expect(valueMatches(false, undefined, { type: 'boolean' })).toBe(false);
  });

  it('compares times by hour and minute and date-times as instants read in UTC', () => {
    expect(valueMatches('19:00', '19:00:00Z', time)).toBe(true);
    expect(valueMatches('19:00', '07:00', time)).toBe(false);
    expect(valueMatches('2026-03-03T18:00', '2026-03-03T18:00:00.000Z', stamp)).toBe(true);
    expect(valueMatches('2026-03-03T18:00', '2026-03-03T18:00:00+01:00', stamp)).toBe(false);
  });

  it('compares arrays as multisets unless ordered, and accepts any listed alternative', () => {
    expect(valueMatches(['milk', 'eggs', 'bread'], ['Bread', 'milk', 'eggs'], words)).toBe(true);
    expect(valueMatches(['milk', 'eggs', 'bread'], ['Bread', 'milk', 'eggs'], words, true)).toBe(false);
    expect(valueMatches(['a', 'a'], ['a', 'b'], words)).toBe(false);
    expect(valueMatches({ anyOf: ['the Ritz', 'Ritz'] }, 'ritz', { type: 'string' })).toBe(true);
  });

  it('tells labelled arguments that are wrong from invented required and extra optional ones', () => {
    const request = REQUESTS.find((r) => r.text === 'please cancel booking ZK4R8T')!;
    const tool = byName.get('cancel_flight')!;
    expect(checkArguments(request, tool, { confirmation_code: 'zk4r8t' })).toEqual({ labelledRight: true, wrong: [], inventedRequired: [], extraOptional: [] });
    expect(checkArguments(request, tool, { confirmation_code: 'ZK4R8T', reason: 'please' }).extraOptional).toEqual(['reason']);
    expect(checkArguments(request, tool, {}).wrong).toEqual(['confirmation_code']);
    const missing = REQUESTS.find((r) => r.text === 'book me the flight KL 605')!;
    expect(checkArguments(missing, byName.get('book_flight')!, { flight_number: 'KL 605', date: '2026-03-02' }).inventedRequired).toEqual(['date']);
    const defaulted = REQUESTS.find((r) => r.text === 'drive to Sacramento avoiding tolls')!;
    expect(checkArguments(defaulted, byName.get('get_directions')!, { destination: 'Sacramento', avoid_tolls: true }).labelledRight).toBe(true);
  });
});
