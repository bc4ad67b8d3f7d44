import * as z from 'zod';
import { PolicyViolationError } from '../errors.ts';
import { registerSecretValues } from './redaction.ts';

/**
 * The secrets port: credentials a tool needs (an API key, a webhook token), held by the host
 * and handed to a tool by name at call time. A value never enters the journal, a plan, a log
 * or an export: tools declare the names they use (`secrets: ['SLACK_TOKEN']`), call
 * `context.secret('SLACK_TOKEN')` while running, and whatever the tool returns or throws is
 * scrubbed of the values it was given before anything records it. Every value a port holds
 * is also registered with the redaction policy, so it is replaced on every channel.
 */
export interface Secrets {
  /** The names this port holds (never values), for listings and checks. */
  names(): readonly string[];
  /** The value of `name`, or undefined when the host holds none. */
  get(name: string): string | undefined | Promise<string | undefined>;
}

/** A secret's name: upper-case letters, digits and `_`, as environment variables are named. */
export const SecretNameSchema = z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'secret names are upper-case letters, digits and "_" (like SLACK_TOKEN)');

/** A port holding nothing: every `context.secret(…)` fails with `missing_secret`. */
export const noSecrets: Secrets = { names: () => [], get: () => undefined };

/** A port over fixed values (tests, a host that reads its own vault). Values are registered for redaction at once. */
export function staticSecrets(values: Readonly<Record<string, string>>): Secrets {
  const held = new Map<string, string>();
  for (const [name, value] of Object.entries(values)) held.set(z.parse(SecretNameSchema, name), value);
  registerSecretValues(held.values());
  return { names: () => [...held.keys()], get: (name) => held.get(name) };
}

/** The prefix of environment variables that hold secrets: `CUGAR_SECRET_SLACK_TOKEN` is the secret `SLACK_TOKEN`. */
export const SECRET_ENV_PREFIX = 'CUGAR_SECRET_';

/**
 * A port over a host's environment (Node's `process.env`, a Worker's `env` bindings, where
 * `wrangler secret put CUGAR_SECRET_…` puts them): every `CUGAR_SECRET_<NAME>` is the secret
 * `<NAME>`. Other variables are not exposed.
 */
export function envSecrets(env: Readonly<Record<string, unknown>>): Secrets {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(env))
    if (key.startsWith(SECRET_ENV_PREFIX) && typeof value === 'string' && SecretNameSchema.safeParse(key.slice(SECRET_ENV_PREFIX.length)).success)
      values[key.slice(SECRET_ENV_PREFIX.length)] = value;
  return staticSecrets(values);
}

/** Replace each of `values` wherever it appears in the strings of `value` (a deep copy; other data is kept as is). */
export function scrubValues<T>(value: T, values: readonly string[]): T {
  if (values.length === 0) return value;
  const scrub = (text: string) => values.reduce((out, secret) => out.split(secret).join('[REDACTED]'), text);
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return scrub(item);
    if (Array.isArray(item)) return item.map(walk);
    if (item === null || typeof item !== 'object' || Object.getPrototypeOf(item) !== Object.prototype) return item;
    return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
  };
  return walk(value) as T;
}

/**
 * What one tool call may reach of the port: only the names its tool declared. `secret`
 * resolves a name (typed `PolicyViolationError` for an undeclared or missing one); `guard` wraps the
 * call so its result and its error message are scrubbed of every value handed out.
 */
export function secretAccess(
  tool: { name: string; secrets?: readonly string[] },
  port: Secrets | undefined,
): { secret: (name: string) => Promise<string>; guard: <T>(work: Promise<T>) => Promise<T> } {
  const given: string[] = [];
  // A tool that declared no secret is never handed one, so there is nothing to scrub: the call runs unwrapped.
  const declared = tool.secrets !== undefined && tool.secrets.length > 0;
  return {
    async secret(name) {
      if (!tool.secrets?.includes(name))
        throw new PolicyViolationError(`tool "${tool.name}" did not declare the secret "${name}"`, {
          code: 'undeclared_secret',
          details: { tool: tool.name, name },
        });
      const value = await port?.get(name);
      if (value === undefined || value === '')
        throw new PolicyViolationError(`the host holds no secret "${name}" (set ${SECRET_ENV_PREFIX}${name})`, {
          code: 'missing_secret',
          details: { tool: tool.name, name },
        });
      given.push(value);
      registerSecretValues([value]);
      return value;
    },
    guard: (work) =>
      !declared
        ? work
        : work.then(
            (output) => scrubValues(output, given),
            (error: unknown) => {
              if (given.length > 0 && error instanceof Error) error.message = scrubValues(error.message, given);
              throw error;
            },
          ),
  };
}
