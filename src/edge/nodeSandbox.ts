import { Worker } from 'node:worker_threads';
import { parse } from '@babel/parser';
import { createWorkerSandbox, type Sandbox, type SpawnSandboxWorker } from '../core/index.ts';

/**
 * The worker's own bootstrap (an ES module from a `data:` URL, run in the worker, never in the
 * host): it compiles the realm script in a fresh `vm` context with code generation from strings
 * and WebAssembly off, answers every `import()` from that code with the realm's network stub, and
 * relays calls. The realm script strips and freezes the context before the tool's code runs.
 */
const WORKER_BOOTSTRAP = `import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
const post = (message) => parentPort.postMessage(message);
process.on('unhandledRejection', () => undefined);
let call;
try {
  const context = vm.createContext(Object.create(null), { name: 'cugar-sandbox', codeGeneration: { strings: false, wasm: false } });
  const refuseImport = vm.runInContext('(function () { return importScripts("import()"); })', context);
  const script = new vm.Script(workerData.script, { filename: 'sandboxed-tool.js', importModuleDynamically: refuseImport });
  call = script.runInContext(context);
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'load_failed', name: String(error && error.name), message: String(error && error.message) });
}
if (call) {
  parentPort.on('message', (message) => {
    if (!message || message.type !== 'call') return;
    call(String(message.input), Number(message.maxChars)).then(
      (result) => post({ type: 'result', id: message.id, result: String(result) }),
      (error) => post({ type: 'result', id: message.id, result: 'e' + String(error && error.message) }),
    );
  });
}
`;

/** The Node options of a sandbox worker: `import()` answered by the bootstrap, and the permission model with nothing allowed. */
export const NODE_SANDBOX_EXEC_ARGV: readonly string[] = ['--experimental-vm-modules', '--experimental-permission', '--no-warnings'];

const BOOTSTRAP_URL = new URL(`data:text/javascript,${encodeURIComponent(WORKER_BOOTSTRAP)}`);

/**
 * Start one sandbox worker on Node: a `worker_threads` Worker with heap and stack limits, an empty
 * environment, its stdout and stderr kept from the host's, `--experimental-vm-modules` (the flag
 * Node 20 needs to let the bootstrap answer `import()` itself instead of failing in the worker's
 * own realm) and `--experimental-permission` with nothing allowed: should code ever reach the
 * worker's own realm, it could read no file, start no process and no worker (Node 20's permission
 * model has no network permission; the network is closed by the realm). The host's permissions
 * are untouched. Out-of-memory and any other exit are reported as failures.
 */
export const spawnNodeSandboxWorker: SpawnSandboxWorker = (script, limits, events) => {
  const worker = new Worker(BOOTSTRAP_URL, {
    workerData: { script },
    name: 'cugar-sandbox',
    env: {},
    stdin: false,
    stdout: true,
    stderr: true,
    execArgv: [...NODE_SANDBOX_EXEC_ARGV],
    trackUnmanagedFds: true,
    resourceLimits: {
      maxOldGenerationSizeMb: limits.memoryMb,
      maxYoungGenerationSizeMb: Math.max(2, Math.min(16, Math.floor(limits.memoryMb / 4))),
      codeRangeSizeMb: 16,
      stackSizeMb: 4,
    },
  });
  let terminated = false;
  worker.stdout.resume();
  worker.stderr.resume();
  worker.on('message', (data: unknown) => events.message(data));
  worker.on('error', (error: Error & { code?: string }) => {
    if (terminated) return;
    terminated = true;
    events.failure({ kind: error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crashed', message: error.message });
  });
  worker.on('exit', (code) => {
    if (terminated) return;
    terminated = true;
    events.failure({ kind: 'crashed', message: `the sandbox worker exited with code ${code}` });
  });
  worker.unref();
  return {
    post: (message) => worker.postMessage(message),
    terminate: () => {
      terminated = true;
      void worker.terminate();
    },
  };
};

/**
 * The Node sandbox: tool sources audited (parsed by @babel/parser), then run in `worker_threads` workers with resource
 * limits (see {@link spawnNodeSandboxWorker}); one warm worker per loaded tool, or up to
 * `poolSize` so the steps of a parallel wave run on several cores at once.
 *
 * @example
 * const sandbox = createNodeSandbox({ poolSize: 2 });
 * const tool = await sandbox.load('export default (input) => input.n * 2');
 * await tool.call({ n: 21 }); // 42
 */
export function createNodeSandbox(options: { poolSize?: number } = {}): Sandbox {
  return createWorkerSandbox('node', spawnNodeSandboxWorker, { parser: parse, ...options });
}
