import { parse } from '@babel/parser';
import { SandboxError, createWorkerSandbox, type Sandbox, type SandboxWorker, type SpawnSandboxWorker, type WorkerFailure } from '../../core/index.ts';

/**
 * The worker's bootstrap around the realm script: it keeps `postMessage` and `addEventListener`
 * for itself (bound, out of the code's reach) before the realm script strips the global, then
 * relays calls. A classic worker script; it is the worker's own code, never run in the page.
 */
function workerSource(script: string): string {
  return `(function (post, listen) {
'use strict';
var call;
try {
  call = ${script};
} catch (error) {
  post({ type: 'load_failed', name: String(error && error.name), message: String(error && error.message) });
  return;
}
post({ type: 'ready' });
listen('message', function (event) {
  var message = event.data;
  if (!message || message.type !== 'call') return;
  call(String(message.input), Number(message.maxChars)).then(function (result) {
    post({ type: 'result', id: message.id, result: String(result) });
  });
});
})(self.postMessage.bind(self), self.addEventListener.bind(self));
`;
}

function failureOf(event: ErrorEvent | Event): WorkerFailure {
  const message = event instanceof ErrorEvent ? event.message : 'the sandbox worker failed';
  return { kind: /SyntaxError/.test(message) ? 'syntax' : 'crashed', message: message || 'the sandbox worker failed' };
}

/**
 * Start a sandbox worker in this realm: a dedicated Web Worker from a Blob URL. Its bootstrap
 * removes the network globals before the tool's code runs, but a worker started here keeps the
 * page's Content Security Policy, so `import()` of a URL is stopped only by the audit (and by the
 * page's CSP, if it has one). {@link createBrowserSandbox} prefers a frame with its own CSP.
 */
export const spawnPageWorker: SpawnSandboxWorker = (script, _limits, events) => {
  const url = URL.createObjectURL(new Blob([workerSource(script)], { type: 'text/javascript' }));
  const worker = new Worker(url, { name: 'cugar-sandbox' });
  let done = false;
  worker.onmessage = (event) => {
    if ((event.data as { type?: unknown } | null)?.type !== 'result') URL.revokeObjectURL(url);
    events.message(event.data);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    URL.revokeObjectURL(url);
    if (done) return;
    done = true;
    events.failure(failureOf(event));
  };
  worker.onmessageerror = () => events.failure({ kind: 'crashed', message: 'the sandbox worker sent a message that could not be read' });
  return {
    post: (message) => worker.postMessage(message),
    terminate: () => {
      done = true;
      worker.terminate();
      URL.revokeObjectURL(url);
    },
  };
};

/**
 * The frame's Content Security Policy, which its workers inherit: no connection of any kind
 * (`fetch`, WebSocket, EventSource), scripts only from blob: URLs (so `import()` and
 * `importScripts` of any URL are refused before a request is made), and no `eval` or `Function`.
 */
export const SANDBOX_FRAME_CSP = "default-src 'none'; script-src 'unsafe-inline' blob:; worker-src blob:";

/** The relay in the frame: starts, feeds and stops workers for the page over one MessagePort. */
const RELAY = `(function () {
  'use strict';
  var workers = new Map();
  window.addEventListener('message', function onPort(event) {
    if (event.source !== window.parent || !event.ports[0]) return;
    window.removeEventListener('message', onPort);
    var port = event.ports[0];
    port.onmessage = function (e) {
      var m = e.data;
      if (m.type === 'spawn') {
        var url = URL.createObjectURL(new Blob([m.source], { type: 'text/javascript' }));
        var worker = new Worker(url, { name: 'cugar-sandbox' });
        workers.set(m.key, worker);
        worker.onmessage = function (w) { URL.revokeObjectURL(url); port.postMessage({ type: 'message', key: m.key, data: w.data }); };
        worker.onerror = function (w) { w.preventDefault(); URL.revokeObjectURL(url); port.postMessage({ type: 'failure', key: m.key, message: String(w.message || 'the sandbox worker failed') }); };
      } else if (m.type === 'post') {
        var target = workers.get(m.key);
        if (target) target.postMessage(m.message);
      } else if (m.type === 'terminate') {
        var stopped = workers.get(m.key);
        if (stopped) stopped.terminate();
        workers.delete(m.key);
      }
    };
    port.postMessage({ type: 'relay_ready' });
  });
})();`;

/** A hidden sandboxed frame (opaque origin, its own CSP) that starts the sandbox workers. */
class SandboxFrame {
  #port: Promise<MessagePort>;
  #frame: HTMLIFrameElement;
  #listeners = new Map<number, Parameters<SpawnSandboxWorker>[2]>();
  #nextKey = 1;

  constructor(doc: Document) {
    const frame = doc.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('aria-hidden', 'true');
    frame.tabIndex = -1;
    frame.style.display = 'none';
    frame.srcdoc = `<!doctype html><meta http-equiv="Content-Security-Policy" content="${SANDBOX_FRAME_CSP}"><script>${RELAY}</script>`;
    this.#frame = frame;
    this.#port = new Promise<MessagePort>((resolve, reject) => {
      frame.addEventListener('load', () => {
        const channel = new MessageChannel();
        const timer = setTimeout(
          () => reject(new SandboxError('unsupported_host', 'the sandbox frame did not start (a Content Security Policy of the page may forbid it)')),
          5_000,
        );
        channel.port1.onmessage = (event: MessageEvent<{ type: string; key?: number; data?: unknown; message?: string }>) => {
          const m = event.data;
          if (m.type === 'relay_ready') return (clearTimeout(timer), resolve(channel.port1));
          const listener = m.key === undefined ? undefined : this.#listeners.get(m.key);
          if (!listener) return;
          if (m.type === 'message') listener.message(m.data);
          if (m.type === 'failure') {
            this.#listeners.delete(m.key!);
            listener.failure({ kind: /SyntaxError/.test(m.message ?? '') ? 'syntax' : 'crashed', message: m.message ?? 'the sandbox worker failed' });
          }
        };
        frame.contentWindow?.postMessage({ type: 'port' }, '*', [channel.port2]);
      });
    });
    doc.body.appendChild(frame);
  }

  spawn(script: string, events: Parameters<SpawnSandboxWorker>[2]): SandboxWorker {
    const key = this.#nextKey++;
    this.#listeners.set(key, events);
    const port = this.#port;
    void port.then(
      (p) => p.postMessage({ type: 'spawn', key, source: workerSource(script) }),
      (error: unknown) => events.failure({ kind: 'crashed', message: error instanceof Error ? error.message : String(error) }),
    );
    return {
      post: (message) => void port.then((p) => p.postMessage({ type: 'post', key, message })),
      terminate: () => {
        this.#listeners.delete(key);
        void port.then((p) => p.postMessage({ type: 'terminate', key }));
      },
    };
  }

  /** Remove the frame: the browser ends every worker it started. */
  remove(): void {
    this.#listeners.clear();
    this.#frame.remove();
  }
}

/** Options of {@link createBrowserSandbox}. */
export interface BrowserSandboxOptions {
  /**
   * `frame` (the default where there is a document): workers start in a hidden sandboxed frame
   * whose CSP refuses every connection, script URL and `eval` (see {@link SANDBOX_FRAME_CSP}).
   * `page`: workers start from this realm and keep the page's CSP (for a realm without a document).
   */
  isolation?: 'frame' | 'page';
  /** The document the frame goes into; default the global `document`. */
  document?: Document;
}

/**
 * The browser sandbox: tool sources audited, then run in dedicated Web Workers from Blob URLs,
 * one warm worker per tool, terminated on timeout. There is no memory limit in a browser: the
 * time limit bounds what a worker can allocate.
 *
 * @example
 * const sandbox = createBrowserSandbox();
 * const tool = await sandbox.load('export default (input) => input.text.length');
 * await tool.call({ text: 'hello' }); // 5
 */
export function createBrowserSandbox(options: BrowserSandboxOptions = {}): Sandbox {
  const doc = options.document ?? (typeof document === 'undefined' ? undefined : document);
  const isolation = options.isolation ?? (doc ? 'frame' : 'page');
  if (isolation === 'page') return createWorkerSandbox('browser', spawnPageWorker, { parser: parse });
  if (!doc) throw new SandboxError('unsupported_host', 'frame isolation needs a document');
  let frame: SandboxFrame | undefined;
  return createWorkerSandbox('browser', (script, _limits, events) => (frame ??= new SandboxFrame(doc)).spawn(script, events), {
    parser: parse,
    onClose: () => {
      frame?.remove();
      frame = undefined;
    },
  });
}
