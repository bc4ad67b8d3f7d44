import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { REDACTED, redactText, type Secrets } from '../core/index.ts';
import { resolveTemplates, type McpServerConfig } from './config.ts';
import { McpToolError, McpUnavailableError, mcpFailure, shortText } from './errors.ts';
import { zodJsonSchemaValidator } from './jsonSchema.ts';

/** Starts a stdio server's process: Node only (`stdioLauncher` in `stdio.ts`); hosts without one refuse stdio servers. */
export type StdioLauncher = (
  server: { name: string; command: string; args: readonly string[]; env: Record<string, string>; cwd?: string },
  log: (line: string) => void,
) => Transport;

/** Options of {@link McpConnection}. */
export interface McpConnectionOptions {
  /** Where `${NAME}` references in headers and env come from. */
  secrets?: Secrets;
  /** Launches stdio servers; absent, a stdio server is refused. */
  stdio?: StdioLauncher;
  /** The fetch HTTP servers are reached with. Default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Where a server's stderr and connection notes go, redacted. Default nowhere. */
  log?: (line: string) => void;
}

/** What one MCP tool call returns into the journal: where it ran and what the server answered. */
export interface McpCallOutput {
  server: string;
  tool: string;
  content: CallToolResult['content'];
  structuredContent?: Record<string, unknown>;
}

/** Most pages of `tools/list` followed. */
const MAX_PAGES = 16;

/** A tool as a server lists it, read leniently: one tool's unusable schema is that tool's problem, not the listing's. */
export interface McpListedTool {
  name: string;
  description?: string;
  title?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

const ListedToolSchema = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string().max(100_000).optional(),
  title: z.string().max(1000).optional(),
  inputSchema: z.unknown(),
  outputSchema: z.unknown().optional(),
});
const ListedPageSchema = z.looseObject({ tools: z.array(z.unknown()).max(1024), nextCursor: z.string().max(10_000).optional() });

/** `value` with every string's occurrences of `values` replaced (a deep copy of plain data). */
function scrub<T>(value: T, values: readonly string[]): T {
  if (values.length === 0) return value;
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return values.reduce((out, secret) => out.split(secret).join(REDACTED), item);
    if (Array.isArray(item)) return item.map(walk);
    if (item === null || typeof item !== 'object') return item;
    return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
  };
  return walk(value) as T;
}

/**
 * A fetch for MCP requests only: response bodies stop at `maxBytes` (a server that streams
 * without end fails the request instead of filling memory), and the standalone stream a
 * client opens with GET is declined as a server without one would (405). Every answer comes on
 * its request's own response, so no connection outlives a call: on a Worker, nothing is left
 * reading in a request that has ended.
 */
export function boundedFetch(maxBytes: number, base: FetchLike = (url, init) => fetch(url, init)): FetchLike {
  return async (url, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method === 'GET') return new Response(null, { status: 405, headers: { allow: 'POST, DELETE' } });
    const response = await base(url, init);
    if (!response.body || method !== 'POST') return response;
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(new McpToolError(`the MCP server's answer is larger than ${maxBytes} bytes`, { code: 'mcp_result_too_large' }));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * One MCP server, connected on first use and again after it was lost: a crashed stdio server
 * is started anew by the next call, an HTTP server whose session ended gets a new one. Every
 * request is bounded by the server's timeouts; every failure is a typed error.
 */
export class McpConnection {
  readonly #options: McpConnectionOptions;
  #client: Promise<Client> | undefined;
  #closed = false;
  /** Secret values handed to the server (headers, env): scrubbed from whatever it answers. */
  #given: string[] = [];
  /** Output schemas by tool, from the last listing, checked against structured results. */
  readonly #outputs = new Map<string, (input: unknown) => { valid: boolean; errorMessage?: string | undefined }>();

  constructor(
    readonly config: McpServerConfig,
    options: McpConnectionOptions = {},
  ) {
    this.#options = options;
  }

  /**
   * The server's tools, every page (bounded), in the order it lists them. Entries without a
   * usable name are dropped; schemas are left for registration to judge, tool by tool.
   */
  async listTools(): Promise<McpListedTool[]> {
    const client = await this.#connected();
    const tools: McpListedTool[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const listed = await client.request({ method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) }, ListedPageSchema, {
          timeout: this.config.connectTimeoutMs,
        });
        for (const entry of listed.tools) {
          const tool = ListedToolSchema.safeParse(entry);
          if (tool.success) tools.push(tool.data as McpListedTool);
        }
        cursor = listed.nextCursor;
        if (!cursor || tools.length >= this.config.maxTools) break;
      }
    } catch (error) {
      throw this.#failed(error);
    }
    this.#outputs.clear();
    for (const tool of tools) {
      if (tool.outputSchema !== undefined) this.#outputs.set(tool.name, zodJsonSchemaValidator.getValidator(tool.outputSchema as never));
    }
    return tools;
  }

  /** Call `tool` (its MCP name) with `args`: within the call timeout, aborted with `signal`, its result bounded and checked. */
  async callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallOutput> {
    const client = await this.#connected();
    let result: CallToolResult;
    try {
      const timeout = this.config.timeoutMs;
      result = (await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout,
        maxTotalTimeout: timeout,
        ...(signal ? { signal } : {}),
      })) as CallToolResult;
    } catch (error) {
      const failure = this.#failed(error, tool);
      failure.message = scrub(failure.message, this.#given);
      throw failure;
    }
    result = scrub(result, this.#given);
    const bytes = new TextEncoder().encode(JSON.stringify(result)).length;
    const details = { server: this.config.name, tool };
    if (bytes > this.config.maxResultBytes)
      throw new McpToolError(`MCP tool ${this.config.name}/${tool} answered ${bytes} bytes, more than ${this.config.maxResultBytes}`, {
        code: 'mcp_result_too_large',
        details: { ...details, bytes },
      });
    if (result.isError) {
      const text = result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      throw new McpToolError(`MCP tool ${this.config.name}/${tool} failed: ${shortText(text || 'no message')}`, { details });
    }
    const output = this.#outputs.get(tool);
    if (output) {
      const checked = output(result.structuredContent);
      if (!checked.valid)
        throw new McpToolError(`MCP tool ${this.config.name}/${tool} answered outside its output schema: ${checked.errorMessage ?? ''}`, {
          code: 'mcp_malformed_result',
          details,
        });
    }
    return {
      server: this.config.name,
      tool,
      content: result.content,
      ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}),
    };
  }

  /** Stop the server (a stdio child exits) and refuse further calls. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    await client?.then((c) => c.close()).catch(() => undefined);
  }

  /** A typed error for `error`; a lost connection is dropped so the next call connects anew. */
  #failed(error: unknown, tool?: string): Error {
    const failure = mcpFailure(error, this.config.name, tool);
    if (failure instanceof McpUnavailableError && failure.code !== 'mcp_timeout' && failure.code !== 'mcp_aborted') void this.#drop();
    return failure;
  }

  async #drop(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.then((c) => c.close()).catch(() => undefined);
  }

  #connected(): Promise<Client> {
    if (this.#closed) return Promise.reject(new McpUnavailableError(`MCP server ${this.config.name} is closed`, { code: 'mcp_closed', retryable: false }));
    if (!this.#client) {
      const connecting = this.#connect();
      this.#client = connecting;
      // A failed start is forgotten, so the next call tries again.
      connecting.catch(() => {
        if (this.#client === connecting) this.#client = undefined;
      });
    }
    return this.#client;
  }

  async #connect(): Promise<Client> {
    const { config } = this;
    const log = (line: string) => this.#options.log?.(redactText(line));
    let transport: Transport;
    if (config.transport.type === 'stdio') {
      if (!this.#options.stdio)
        throw new McpUnavailableError(`MCP server ${config.name} is a stdio server, which this host cannot start`, {
          code: 'mcp_stdio_unsupported',
          retryable: false,
        });
      const { resolved: env, secretValues } = await resolveTemplates(config.transport.env, this.#options.secrets, config.name);
      this.#given = secretValues;
      transport = this.#options.stdio(
        {
          name: config.name,
          command: config.transport.command,
          args: config.transport.args,
          env,
          ...(config.transport.cwd ? { cwd: config.transport.cwd } : {}),
        },
        log,
      );
    } else {
      const { resolved: headers, secretValues } = await resolveTemplates(config.transport.headers, this.#options.secrets, config.name);
      this.#given = secretValues;
      transport = new StreamableHTTPClientTransport(new URL(config.transport.url), {
        requestInit: { headers },
        // The JSON-RPC envelope and escaping come on top of the result itself.
        fetch: boundedFetch(config.maxResultBytes * 2 + 64 * 1024, this.#options.fetch),
        reconnectionOptions: { initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 2, maxRetries: 2 },
      });
    }
    const client = new Client({ name: 'cugar', version: '0.1.0' }, { capabilities: {}, jsonSchemaValidator: zodJsonSchemaValidator });
    const current = () => this.#client;
    client.onclose = () => {
      // The process exited or the session ended: the next call starts over.
      void current()?.then(
        (c) => {
          if (c === client) this.#client = undefined;
        },
        () => undefined,
      );
    };
    client.onerror = (error) => log(`MCP server ${config.name}: ${shortText(error.message)}`);
    try {
      await client.connect(transport, { timeout: config.connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      throw mcpFailure(error, config.name);
    }
    return client;
  }
}
