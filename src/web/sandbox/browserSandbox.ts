import { parse } from '@babel/parser';
import { SandboxError, createWorkerSandbox, type Sandbox, type SandboxWorker, type SpawnSandboxWorker, type WorkerFailure } from '../../core/index.ts';

/**
 * The worker's bootstrap around the realm script: it keeps `addEventListener` for itself (bound,
 * out of the code's reach) before the realm script strips the global, then waits for the one
 * message that hands it a MessagePort, answers `ready` (or `load_failed`) on it and serves calls
 * on it. A classic worker script; it is the worker's own code, never run in the page.
 */
function workerSource(script: string): string {
  return `(function (listen) {
'use strict';
var call, failure;
try {
  call = ${script};
} catch (error) {
  failure = { type: 'load_failed', name: String(error && error.name), message: String(error && error.message) };
}
listen('message', function (event) {
  var port = event.ports && event.ports[0];
  if (!port) return;
  var post = port.postMessage.bind(port);
  if (failure) return post(failure);
  port.onmessage = function (message) {
    var data = message.data;
    if (!data || data.type !== 'call') return;
    call(String(data.input), Number(data.maxChars)).then(function (result) {
      post({ type: 'result', id: data.id, result: String(result) });
    });
  };
  post({ type: 'ready' });
}, { once: true });
})(self.addEventListener.bind(self));
`;
}

function failureOf(message: string): WorkerFailure {
  return { kind: /SyntaxError/.test(message) ? 'syntax' : 'crashed', message: message || 'the sandbox worker failed' };
}

/** The page's end of a worker's channel: calls go straight to the worker, whoever started it. */
function channelWorker(port: MessagePort, events: Parameters<SpawnSandboxWorker>[2], stop: () => void): SandboxWorker & { fail(message: string): void } {
  let done = false;
  port.onmessage = (event) => {
    if (!done) events.message(event.data);
  };
  port.onmessageerror = () => events.failure({ kind: 'crashed', message: 'the sandbox worker sent a message that could not be read' });
  return {
    post: (message) => port.postMessage(message),
    terminate: () => {
      done = true;
      port.close();
      stop();
    },
    fail: (message) => {
      if (done) return;
      done = true;
      port.close();
      events.failure(failureOf(message));
    },
  };
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
  const channel = new MessageChannel();
  const handle = channelWorker(channel.port1, events, () => {
    worker.terminate();
    URL.revokeObjectURL(url);
  });
  worker.onerror = (event) => {
    event.preventDefault();
    URL.revokeObjectURL(url);
    handle.fail(event.message);
  };
  worker.postMessage('port', [channel.port2]);
  return handle;
};

/**
 * The frame's Content Security Policy, which its workers inherit: no connection of any kind
 * (`fetch`, WebSocket, EventSource), scripts only from blob: URLs (so `import()` and
 * `importScripts` of any URL are refused before a request is made), and no `eval` or `Function`.
 */
export const SANDBOX_FRAME_CSP = "default-src 'none'; script-src 'unsafe-inline' blob:; worker-src blob:";

/** The relay in the frame: starts and stops workers for the page, and hands it each worker's own MessagePort. */
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
        var channel = new MessageChannel();
        workers.set(m.key, { worker: worker, url: url });
        worker.onerror = function (w) { w.preventDefault(); URL.revokeObjectURL(url); port.postMessage({ type: 'failure', key: m.key, message: String(w.message || 'the sandbox worker failed') }); };
        worker.postMessage('port', [channel.port2]);
        port.postMessage({ type: 'channel', key: m.key }, [channel.port1]);
      } else if (m.type === 'terminate') {
        var stopped = workers.get(m.key);
        if (stopped) { stopped.worker.terminate(); URL.revokeObjectURL(stopped.url); }
        workers.delete(m.key);
      }
    };
    port.postMessage({ type: 'relay_ready' });
  });
})();`;

/** A hidden sandboxed frame (opaque origin, its own CSP) that starts the sandbox workers. */
type FrameEntry = { events: Parameters<SpawnSandboxWorker>[2]; handle?: ReturnType<typeof channelWorker>; stopped?: true };

class SandboxFrame {
  #port: Promise<MessagePort>;
  #frame: HTMLIFrameElement;
  #entries = new Map<number, FrameEntry>();
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
        channel.port1.onmessage = (event: MessageEvent<{ type: string; key?: number; message?: string }>) => {
          const m = event.data;
          if (m.type === 'relay_ready') return (clearTimeout(timer), resolve(channel.port1));
          const entry = m.key === undefined ? undefined : this.#entries.get(m.key);
          if (!entry || entry.stopped) return;
          const key = m.key!;
          if (m.type === 'channel' && event.ports[0])
            entry.handle = channelWorker(event.ports[0], entry.events, () => void this.#port.then((p) => p.postMessage({ type: 'terminate', key })));
          if (m.type === 'failure') {
            this.#entries.delete(key);
            if (entry.handle) entry.handle.fail(m.message ?? '');
            else entry.events.failure(failureOf(m.message ?? ''));
          }
        };
        frame.contentWindow?.postMessage({ type: 'port' }, '*', [channel.port2]);
      });
    });
    doc.body.appendChild(frame);
  }

  spawn(script: string, events: Parameters<SpawnSandboxWorker>[2]): SandboxWorker {
    const key = this.#nextKey++;
    const entry: FrameEntry = { events };
    this.#entries.set(key, entry);
    void this.#port.then(
      (p) => p.postMessage({ type: 'spawn', key, source: workerSource(script) }),
      (error: unknown) => events.failure({ kind: 'crashed', message: error instanceof Error ? error.message : String(error) }),
    );
    return {
      // The worker answers `ready` on its channel before any call is sent, so the channel is there by then.
      post: (message) => entry.handle?.post(message),
      terminate: () => {
        entry.stopped = true;
        this.#entries.delete(key);
        if (entry.handle) entry.handle.terminate();
        else void this.#port.then((p) => p.postMessage({ type: 'terminate', key }));
      },
    };
  }

  /** Remove the frame: the browser ends every worker it started. */
  remove(): void {
    this.#entries.clear();
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
