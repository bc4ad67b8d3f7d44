import * as z from 'zod';
import { sha256Hex } from '../journal/sha256.ts';
import type { JsonValue } from '../schema/common.ts';
import { assertAudited } from './patchAuditor.ts';
import type { CodeParserSource } from '../tools/codeAnalyzer/parseSource.ts';
import { realmScript } from './realmScript.ts';
import { realmLibrary } from './realmLibraries.ts';
import { PooledTool } from './sandboxPool.ts';
import {
  SandboxLimitsSchema,
  type ResolvedSandboxLimits,
  type Sandbox,
  type SandboxCallOptions,
  type SandboxLoadOptions,
  type SandboxedTool,
} from './sandbox.ts';
import { SandboxError, type SandboxErrorCode } from './sandboxError.ts';

/** What a sandbox worker sends its host; anything else is a protocol error. */
export const WorkerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('load_failed'), name: z.string(), message: z.string() }),
  z.object({ type: z.literal('result'), id: z.number().int(), result: z.string() }),
]);
export type WorkerMessage = z.output<typeof WorkerMessageSchema>;

/** What a host sends its sandbox worker: one call at a time. */
export interface CallMessage {
  type: 'call';
  id: number;
  /** The input as JSON text. */
  input: string;
  maxChars: number;
}

/** How a worker ended without being asked: out of memory, or any other death. */
export type WorkerFailure = { kind: 'memory' | 'crashed' | 'syntax'; message: string };

/** A running sandbox worker, as its host adapter exposes it. */
export interface SandboxWorker {
  post(message: CallMessage): void;
  /** Stop it now; no message or failure is reported afterwards. */
  terminate(): void;
}

/**
 * Start an isolated worker that runs `script` (the {@link realmScript} of one tool) and reports
 * to `events`: every message it posts, and one failure if it dies on its own. This is all a host
 * adapter implements (Node: `worker_threads`; browser: a Web Worker).
 */
export type SpawnSandboxWorker = (
  script: string,
  limits: ResolvedSandboxLimits,
  events: { message(data: unknown): void; failure(failure: WorkerFailure): void },
) => SandboxWorker;

type Pending = { resolve(message: WorkerMessage): void; reject(error: SandboxError): void };

class WorkerTool implements SandboxedTool {
  readonly id: string;
  starts = 0;
  #script: string;
  #limits: ResolvedSandboxLimits;
  #spawn: SpawnSandboxWorker;
  #worker: SandboxWorker | undefined;
  #pending: Pending | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #closed = false;
  #onClose: () => void;

  constructor(id: string, script: string, limits: ResolvedSandboxLimits, spawn: SpawnSandboxWorker, onClose: () => void) {
    this.id = id;
    this.#script = script;
    this.#limits = limits;
    this.#spawn = spawn;
    this.#onClose = onClose;
  }

  /**
   * Wait for the worker's next message, or fail after `timeoutMs` or on `signal`, terminating it.
   * Whichever comes first settles the wait and disarms the others, so a stale timer never
   * terminates a worker started after it.
   */
  #next(timeoutMs: number, what: string, signal?: AbortSignal): Promise<WorkerMessage> {
    return new Promise<WorkerMessage>((resolve, reject) => {
      let settled = false;
      const settle = () => {
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        if (this.#pending === pending) this.#pending = undefined;
      };
      const stop = (error: SandboxError) => {
        if (settled) return;
        settle();
        this.#discard();
        reject(error);
      };
      const timer = setTimeout(() => stop(new SandboxError('timeout', `${what} ran past ${timeoutMs} ms; its worker was terminated`)), timeoutMs);
      const abort = () => stop(new SandboxError('timeout', `${what} was cancelled; its worker was terminated`, { cause: signal?.reason }));
      const pending: Pending = {
        resolve: (message) => {
          if (settled) return;
          settle();
          resolve(message);
        },
        reject: (error) => {
          if (settled) return;
          settle();
          reject(error);
        },
      };
      this.#pending = pending;
      signal?.addEventListener('abort', abort, { once: true });
      if (signal?.aborted) abort();
    });
  }

  #discard(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#pending = undefined;
    worker?.terminate();
  }

  async #ensureWorker(): Promise<SandboxWorker> {
    if (this.#worker) return this.#worker;
    this.starts++;
    const ready = this.#next(this.#limits.loadTimeoutMs, 'starting the tool');
    const worker = this.#spawn(this.#script, this.#limits, {
      message: (data) => {
        if (this.#worker !== worker) return;
        const parsed = WorkerMessageSchema.safeParse(data);
        if (parsed.success) this.#pending?.resolve(parsed.data);
        else {
          this.#pending?.reject(new SandboxError('crashed', 'the sandbox worker sent a message outside its protocol; it was terminated'));
          this.#discard();
        }
      },
      failure: ({ kind, message }) => {
        if (this.#worker !== worker) return;
        const pending = this.#pending;
        this.#worker = undefined;
        this.#pending = undefined;
        worker.terminate();
        pending?.reject(new SandboxError(kind, kind === 'memory' ? `the sandbox worker ran out of its ${this.#limits.memoryMb} MiB: ${message}` : message));
      },
    });
    this.#worker = worker;
    const first = await ready;
    if (first.type === 'ready') return worker;
    this.#discard();
    const code: SandboxErrorCode = first.type === 'load_failed' && first.name === 'SyntaxError' ? 'syntax' : 'crashed';
    throw new SandboxError(code, `the tool failed to load: ${first.type === 'load_failed' ? `${first.name}: ${first.message}` : 'unexpected message'}`);
  }

  /** Start the worker (if none runs) without calling the handler. */
  start(): Promise<void> {
    const run = this.#queue.then(async () => void (await this.#ensureWorker()));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  call(input: unknown, options: SandboxCallOptions = {}): Promise<JsonValue> {
    const run = this.#queue.then(() => this.#call(input, options));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #call(input: unknown, options: SandboxCallOptions): Promise<JsonValue> {
    if (this.#closed) throw new SandboxError('closed', 'the sandboxed tool was closed');
    let text: string | undefined;
    try {
      text = JSON.stringify(input);
    } catch (error) {
      throw new SandboxError('bad_input', 'the input is not a JSON value', { cause: error });
    }
    if (typeof text !== 'string') throw new SandboxError('bad_input', 'the input is not a JSON value');
    if (text.length > this.#limits.maxInputChars)
      throw new SandboxError('bad_input', `the input is ${text.length} characters of JSON, over the limit of ${this.#limits.maxInputChars}`);
    const timeoutMs = options.timeoutMs ?? this.#limits.timeoutMs;
    const worker = await this.#ensureWorker();
    const id = this.#nextId++;
    const answer = this.#next(timeoutMs, 'the call', options.signal);
    worker.post({ type: 'call', id, input: text, maxChars: this.#limits.maxOutputChars });
    const message = await answer;
    if (message.type !== 'result' || message.id !== id) {
      this.#discard();
      throw new SandboxError('crashed', 'the sandbox worker answered out of turn; it was terminated');
    }
    const body = message.result.slice(1);
    switch (message.result[0]) {
      case 'o':
        return JSON.parse(body) as JsonValue;
      case 'e':
        throw new SandboxError('handler_failed', `the sandboxed handler threw ${body}`);
      case 'n':
        throw new SandboxError('network_denied', `the sandboxed handler reached for the network: ${body}`);
      case 'b':
        throw new SandboxError('bad_output', body);
      default:
        this.#discard();
        throw new SandboxError('crashed', 'the sandbox worker sent an unreadable result; it was terminated');
    }
  }

  /** Terminate the worker now: a call under way rejects with `closed`, and so does every later one. */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#pending;
    this.#discard();
    pending?.reject(new SandboxError('closed', 'the sandboxed tool was closed during the call'));
    this.#onClose();
  }
}

/** Load a factory source (already audited, or deliberately not) into a new worker-backed tool. */
async function loadFactory(host: SandboxHost, id: string, factorySource: string, options: SandboxLoadOptions): Promise<SandboxedTool> {
  const limits = SandboxLimitsSchema.safeParse(options.limits ?? {});
  if (!limits.success) throw new SandboxError('bad_input', 'the sandbox limits are not valid', { details: limits.error.issues });
  const script = realmScript(factorySource, options.library);
  const worker = () => {
    const tool: WorkerTool = new WorkerTool(id, script, limits.data, host.spawn, () => host.tools.delete(tool));
    host.tools.add(tool);
    return tool;
  };
  const tool = worker();
  // Start the worker now: a load that fails is reported by `load`, and the first call is warm.
  await tool.start().catch((error: unknown) => {
    host.tools.delete(tool);
    throw error;
  });
  return host.poolSize > 1 ? new PooledTool(tool, host.poolSize, worker) : tool;
}

/** What a worker sandbox keeps: how it starts workers, every worker it started, and the workers each tool may have. */
interface SandboxHost {
  spawn: SpawnSandboxWorker;
  tools: Set<WorkerTool>;
  poolSize: number;
}

const HOSTS = new WeakMap<Sandbox, SandboxHost>();

/**
 * A {@link Sandbox} over isolated workers started by `spawn`: the host adapters (Node,
 * browser) are this plus their spawn function. Each loaded tool keeps one warm worker, or up to
 * `poolSize` (the host's worker pool) so calls made at once run at once ({@link PooledTool}).
 * `parser` audits each source (@babel/parser's `parse`, see {@link CodeParserSource}); `onClose`
 * runs after `close` has terminated every worker (a host frees what it set up).
 */
export function createWorkerSandbox(
  hostName: string,
  spawn: SpawnSandboxWorker,
  options: { parser: CodeParserSource; onClose?: () => void; poolSize?: number },
): Sandbox {
  const poolSize = options.poolSize ?? 1;
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 256)
    throw new SandboxError('bad_input', `the sandbox pool size must be a whole number from 1 to 256, not ${poolSize}`);
  const host: SandboxHost = { spawn, tools: new Set<WorkerTool>(), poolSize };
  const sandbox: Sandbox = {
    host: hostName,
    async load(source, loadOptions = {}) {
      const library = loadOptions.library === undefined ? undefined : realmLibrary(loadOptions.library);
      const factory = await assertAudited(source, options.parser, loadOptions.audit, library?.globals);
      return loadFactory(host, `sha256:${sha256Hex(source)}`, factory, loadOptions);
    },
    async close() {
      await Promise.all([...host.tools].map((tool) => tool.close()));
      options.onClose?.();
    },
  };
  HOSTS.set(sandbox, host);
  return sandbox;
}

/**
 * Load a factory source with no audit, for the escape tests that prove the worker stops what the
 * audit would have refused. Not exported from any entry point and not used by the API.
 */
export function loadWithoutAudit(sandbox: Sandbox, factorySource: string, options: SandboxLoadOptions = {}): Promise<SandboxedTool> {
  const host = HOSTS.get(sandbox);
  if (!host) throw new SandboxError('unsupported_host', 'not a worker sandbox');
  return loadFactory(host, `unaudited:${sha256Hex(factorySource)}`, factorySource, options);
}
