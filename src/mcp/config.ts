import * as z from 'zod';
import { ProfileNameSchema, SecretNameSchema, ValidationError, type Secrets } from '../core/index.ts';
import { McpNotAllowedError } from './errors.ts';

/** An MCP server's name: lowercase letters, digits and `_`; it prefixes its tools' names and names its capability (`mcp:<name>`). */
export const McpServerNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,31}$/, 'MCP server names are 1-32 lowercase letters, digits or "_", starting with a letter');

/** A value that may name host secrets as `${NAME}` (resolved through the secrets port, `CUGAR_SECRET_<NAME>` on Node). */
const TemplateSchema = z.string().max(8000);

/** A server started as a child process that speaks MCP on its stdin and stdout (Node only). */
export const McpStdioTransportSchema = z
  .object({
    type: z.literal('stdio'),
    /** The program, exactly as the profile's allow-list names it (`npx`, `/usr/local/bin/my-server`). */
    command: z.string().min(1).max(1000),
    args: z.array(z.string().max(4000)).max(100).default([]),
    /** Extra environment of the child; values may name secrets (`"API_KEY": "${MY_API_KEY}"`). */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/), TemplateSchema).default({}),
    cwd: z.string().min(1).max(1000).optional(),
  })
  .strict();

/** A server reached over Streamable HTTP (every host). */
export const McpHttpTransportSchema = z
  .object({
    type: z.literal('http'),
    url: z.url({ protocol: /^https?$/ }),
    /** Request headers; values may name secrets (`"Authorization": "Bearer ${GITHUB_TOKEN}"`). */
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/), TemplateSchema).default({}),
  })
  .strict();

/** One configured MCP server: where it is, which profile its tools join, and the bounds of each call. */
export const McpServerConfigSchema = z
  .object({
    name: McpServerNameSchema,
    profile: ProfileNameSchema,
    transport: z.discriminatedUnion('type', [McpStdioTransportSchema, McpHttpTransportSchema]),
    /** Only these of the server's tools (MCP names); default all. */
    tools: z.array(z.string().min(1).max(128)).max(256).optional(),
    /** Prefix of the registered names (`<prefix>_<tool>`); default the server's name, `""` for none. */
    prefix: z
      .string()
      .regex(/^(?:[a-z][a-z0-9_]{0,31})?$/)
      .optional(),
    /** Every tool (`true`) or these tools (MCP names) ask a person before each call. */
    requireApproval: z.union([z.boolean(), z.array(z.string().min(1).max(128)).max(256)]).default(false),
    /** Tools (MCP names) safe to call again with the same idempotency key after a crash. Default none: servers' hints are not trusted. */
    idempotent: z.array(z.string().min(1).max(128)).max(256).default([]),
    /** Relative cost and expected latency (ms) of one call, for budgets and health. */
    cost: z.number().min(0).max(1e9).default(1),
    latency: z.number().min(0).max(3.6e6).default(1000),
    /** Longest wait for one call, in ms. */
    timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** Longest wait for the server to start and answer `initialize` and `tools/list`, in ms. */
    connectTimeoutMs: z.number().int().min(100).max(600_000).default(15_000),
    /** Largest result of one call, in bytes of JSON; a larger one fails the call. */
    maxResultBytes: z
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024)
      .default(1024 * 1024),
    /** Most tools taken from the server. */
    maxTools: z.number().int().min(1).max(1024).default(128),
  })
  .strict();
export type McpServerConfig = z.output<typeof McpServerConfigSchema>;
export type McpServerConfigInput = z.input<typeof McpServerConfigSchema>;

/** What a profile allows of MCP: HTTP servers need `network` (the profile's network permission), stdio servers a listed `command`. */
export const McpProfileAllowSchema = z
  .object({
    network: z.boolean().default(false),
    commands: z.array(z.string().min(1).max(1000)).max(64).default([]),
  })
  .strict();
export type McpProfileAllow = z.output<typeof McpProfileAllowSchema>;

/** MCP permissions by profile. */
export const McpAllowSchema = z.record(ProfileNameSchema, McpProfileAllowSchema);
export type McpAllow = z.output<typeof McpAllowSchema>;

function parseJsonSetting<S extends z.ZodType>(schema: S, text: string | undefined, name: string, example: string): z.output<S> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError(`${name} must be JSON such as ${example}`, { code: 'invalid_mcp_config' });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new ValidationError(`${name} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`, {
      code: 'invalid_mcp_config',
      details: { issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
    });
  return parsed.data;
}

/** Parse `CUGAR_MCP_SERVERS`: a JSON list of {@link McpServerConfigSchema}; names are unique. Unset or empty is no server. */
export function parseMcpServers(text: string | undefined): McpServerConfig[] {
  const servers =
    parseJsonSetting(
      z.array(McpServerConfigSchema).max(64),
      text,
      'CUGAR_MCP_SERVERS',
      '[{"name":"files","profile":"demo","transport":{"type":"stdio","command":"npx","args":["-y","some-mcp-server"]}}]',
    ) ?? [];
  const seen = new Set<string>();
  for (const server of servers) {
    if (seen.has(server.name)) throw new ValidationError(`CUGAR_MCP_SERVERS names "${server.name}" twice`, { code: 'invalid_mcp_config' });
    seen.add(server.name);
  }
  return servers;
}

/** Parse `CUGAR_MCP_ALLOW`: JSON `{ "<profile>": { "network": true, "commands": ["npx"] } }`. Unset allows nothing. */
export function parseMcpAllow(text: string | undefined): McpAllow {
  return parseJsonSetting(McpAllowSchema, text, 'CUGAR_MCP_ALLOW', '{"demo":{"network":true,"commands":["npx"]}}') ?? {};
}

/**
 * Refuse `server` unless its profile allows it: a stdio command must be on the profile's
 * `commands` (compared exactly), an HTTP server needs the profile's `network`.
 */
export function checkAllowed(server: McpServerConfig, allow: McpProfileAllow | undefined): void {
  const details = { server: server.name, profile: server.profile };
  if (server.transport.type === 'stdio') {
    if (!allow?.commands.includes(server.transport.command))
      throw new McpNotAllowedError(`profile "${server.profile}" does not allow the command "${server.transport.command}" of MCP server ${server.name}`, {
        code: 'mcp_command_not_allowed',
        details: { ...details, command: server.transport.command },
      });
    return;
  }
  if (!allow?.network)
    throw new McpNotAllowedError(`MCP server ${server.name} needs the network, which profile "${server.profile}" does not allow`, {
      code: 'network_not_allowed',
      details,
    });
}

const REFERENCE = /\$\{([^}]*)\}/g;

/**
 * Fill the `${NAME}` references of `values` from the secrets port. Each name must be a secret
 * name the port holds; the values it gives are registered for redaction by the port, so a
 * header or an environment value never reaches a journal, a log or an export.
 */
export async function resolveTemplates(
  values: Readonly<Record<string, string>>,
  secrets: Secrets | undefined,
  server: string,
): Promise<{ resolved: Record<string, string>; secretValues: string[] }> {
  const out: Record<string, string> = {};
  const secretValues: string[] = [];
  for (const [key, template] of Object.entries(values)) {
    const names = [...template.matchAll(REFERENCE)].map((m) => m[1]!);
    const resolved = new Map<string, string>();
    for (const name of names) {
      if (!SecretNameSchema.safeParse(name).success)
        throw new ValidationError(`MCP server ${server}: "${key}" names "\${${name}}", which is no secret name (upper-case letters, digits and "_")`, {
          code: 'invalid_mcp_config',
        });
      const value = await secrets?.get(name);
      if (value === undefined || value === '')
        throw new McpNotAllowedError(`MCP server ${server}: the host holds no secret "${name}" (set CUGAR_SECRET_${name})`, {
          code: 'missing_secret',
          details: { server, name },
        });
      resolved.set(name, value);
      secretValues.push(value);
    }
    out[key] = template.replace(REFERENCE, (_match, name: string) => resolved.get(name)!);
  }
  return { resolved: out, secretValues };
}
