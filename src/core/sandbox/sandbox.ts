import * as z from 'zod';
import type { JsonValue } from '../schema/common.ts';
import { SandboxError } from './sandboxError.ts';
import type { AuditLimits } from './patchAuditor.ts';
import type { RealmLibraryName } from './realmLibraries.ts';

/** Limits of one sandboxed tool; each has a default. */
export const SandboxLimitsSchema = z.object({
  /** Longest one call may run before its worker is terminated, in milliseconds. Default 1,000. */
  timeoutMs: z.number().int().min(1).max(600_000).default(1_000),
  /** Longest starting a worker (realm set-up and the source's top level) may take, in milliseconds. Default 5,000. */
  loadTimeoutMs: z.number().int().min(1).max(600_000).default(5_000),
  /** The worker's heap, in MiB, where the host can limit it (Node); ignored in browsers. Default 64. */
  memoryMb: z.number().int().min(8).max(4_096).default(64),
  /** Largest input, in characters of its JSON. Default 1,000,000. */
  maxInputChars: z.number().int().min(2).max(50_000_000).default(1_000_000),
  /** Largest output, in characters of its JSON. Default 1,000,000. */
  maxOutputChars: z.number().int().min(2).max(50_000_000).default(1_000_000),
});
export type SandboxLimits = z.input<typeof SandboxLimitsSchema>;
export type ResolvedSandboxLimits = z.output<typeof SandboxLimitsSchema>;

/** Options of {@link Sandbox.load}. */
export interface SandboxLoadOptions {
  limits?: SandboxLimits;
  /** Limits of the patch audit the source must pass first. */
  audit?: AuditLimits;
  /**
   * A library CUGAr ships, run in the realm before the source (`hono`: Hono over the realm's own
   * `Headers`, `Request` and `Response`, which fetch nothing); the source may name its globals.
   * Default none: the realm holds only the language's globals.
   */
  library?: RealmLibraryName;
}

/** Options of one {@link SandboxedTool.call}. */
export interface SandboxCallOptions {
  /** This call's time limit instead of the tool's `timeoutMs`. */
  timeoutMs?: number;
  /** Aborting it terminates the worker, as a timeout does. */
  signal?: AbortSignal;
}

/**
 * One loaded tool source: a warm worker that runs its handler, one call at a time. A call that
 * times out, runs out of memory or crashes terminates the worker; the next call starts a new one.
 */
export interface SandboxedTool {
  /** `sha256:<hex>` of the source: the same source is the same tool version. */
  readonly id: string;
  /** Run the handler on `input` (a JSON value); resolves to its output (a JSON value) or rejects with a {@link SandboxError}. */
  call(input: unknown, options?: SandboxCallOptions): Promise<JsonValue>;
  /** How many workers this tool has started, the first included. */
  readonly starts: number;
  /** Terminate the worker; later calls reject with `closed`. */
  close(): Promise<void>;
}

/**
 * The sandbox port: runs code that was not shipped with CUGAr in an isolated worker. `load`
 * audits the source (a refusal is `SandboxError('audit_failed')` listing every finding), starts
 * a worker with no network, no host objects and a frozen realm, and hands back a
 * {@link SandboxedTool}. Hosts that cannot isolate code refuse with `unsupported_host`.
 *
 * @example
 * const tool = await sandbox.load('export default (input) => ({ sum: input.a + input.b })', { limits: { timeoutMs: 500 } });
 * await tool.call({ a: 2, b: 3 }); // { sum: 5 }
 * await tool.close();
 */
export interface Sandbox {
  /** Where code runs: `node` (worker_threads), `browser` (Web Worker) or the name of a host that refuses. */
  readonly host: string;
  load(source: string, options?: SandboxLoadOptions): Promise<SandboxedTool>;
  /** Terminate every worker this sandbox started. */
  close(): Promise<void>;
}

/**
 * The sandbox of a host that cannot run code that was not shipped with CUGAr (workerd, which
 * forbids code generation and has no worker to isolate it in): every `load` rejects with
 * `SandboxError('unsupported_host')` saying why.
 */
export function refusingSandbox(host: string, reason: string): Sandbox {
  return {
    host,
    load: () => Promise.reject(new SandboxError('unsupported_host', `sandboxed code cannot run on ${host}: ${reason}`)),
    close: () => Promise.resolve(),
  };
}

/** The refusal on Cloudflare Workers (workerd). */
export const WORKERD_SANDBOX_REASON =
  'workerd allows no code generation and no dedicated worker per tool, so code that was not shipped with the deployment is refused; run such tools on the Node host or in the browser';
