import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { parse } from '@babel/parser';
import { createNodeSandbox } from '../src/edge/nodeSandbox.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../tests/support/chromium.ts';
import { machineDescription, type BenchResult } from './report.ts';
import { measureSandbox, type SandboxFigures } from './sandboxWorkload.ts';
import { fmt } from './stats.ts';

async function inChromium(): Promise<{ frame: SandboxFigures; page: SandboxFigures }> {
  const { build } = await import('esbuild');
  const { chromium } = await import('playwright');
  const bundle = await build({
    entryPoints: [new URL('./browser/sandboxPage.ts', import.meta.url).pathname],
    bundle: true,
    format: 'iife',
    write: false,
    platform: 'browser',
    target: 'chrome120',
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  const server = createServer((req, res) => {
    if (req.url === '/bench.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bench</title><script src="/bench.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    type Api = { cugarBench: { measure(isolation: 'frame' | 'page'): Promise<SandboxFigures> } };
    const frame = await page.evaluate(() => (globalThis as unknown as Api).cugarBench.measure('frame'));
    const isolatedByPage = await page.evaluate(() => (globalThis as unknown as Api).cugarBench.measure('page'));
    return { frame, page: isolatedByPage };
  } finally {
    await browser.close();
    server.close();
  }
}

/** Cold start and per-call overhead of a sandboxed tool against the same function in-process, on Node and in Chromium. */
export async function run(): Promise<BenchResult> {
  const sandbox = createNodeSandbox();
  const node = await measureSandbox(sandbox, parse);
  await sandbox.close();
  const browser = await inChromium();
  const row = (host: string, f: SandboxFigures) => [
    host,
    fmt(f.coldLoadMs, 1),
    fmt(f.auditMs, 2),
    fmt(f.firstCallMs, 2),
    fmt(f.sandboxCallUs, 1),
    fmt(f.inProcessCallUs, 2),
    fmt(f.sandboxCallUs - f.inProcessCallUs, 1),
  ];
  return {
    name: 'sandbox',
    title: 'Sandboxed tools: cold start and per-call overhead',
    method: `One small tool (sums 16 numbers; JSON in and out) loaded into the sandbox, against the same function called in-process. Cold start is \`sandbox.load\`: the patch audit (@babel/parser, the analyzer's rules, the allow-list), a new worker, the realm's set-up (globals stripped, intrinsics frozen) and the first message back; the median of ${node.loads} loads, each closed before the next. Per call: ${node.rounds} interleaved rounds of ${node.callsPerRound} sequential calls through the warm worker, then ${node.callsPerRound} awaited calls of the in-process function; the medians of the per-call means. Node: a worker_threads worker with a vm context; Chromium (Debian's, through Playwright): a Web Worker started by the sandboxed frame (frame isolation, the default) or by the page.`,
    columns: ['host', 'cold start (ms)', 'audit alone (ms)', 'first call (ms)', 'sandboxed call (µs)', 'in-process call (µs)', 'overhead per call (µs)'],
    rows: [
      row('Node (worker_threads + vm)', node),
      row('Chromium, frame isolation (Web Worker in a CSP frame)', browser.frame),
      row('Chromium, page isolation (Web Worker of the page)', browser.page),
    ],
    targets: [
      {
        label: 'Node: overhead per call',
        measured: `${fmt(node.sandboxCallUs - node.inProcessCallUs, 1)} µs`,
        target: '≤ 1,000 µs',
        met: node.sandboxCallUs - node.inProcessCallUs <= 1_000,
      },
      { label: 'Node: cold start', measured: `${fmt(node.coldLoadMs, 1)} ms`, target: '≤ 250 ms', met: node.coldLoadMs <= 250 },
      {
        label: 'Chromium (frame isolation): overhead per call',
        measured: `${fmt(browser.frame.sandboxCallUs - browser.frame.inProcessCallUs, 1)} µs`,
        target: '≤ 1,000 µs',
        met: browser.frame.sandboxCallUs - browser.frame.inProcessCallUs <= 1_000,
      },
    ],
    notes: [
      'In Chromium the sandboxed frame is created once per sandbox (in the untimed warm-up load), so its cold start is a worker. In both isolations the page and the worker talk over a MessagePort of their own; the frame, an opaque origin, can be given its own renderer process by Chromium, and messages that cross processes would account for the higher per-call cost of frame isolation (not measured separately).',
      'A sandboxed call is two structured-clone messages (call and result, both JSON text) and a JSON parse and stringify on each side; a warm worker is kept per loaded tool, so the cold start is paid once per tool version (and again after a worker is terminated).',
      `Load average when the measurement ended: ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores; on a busy machine the figures vary, the ratios less.`,
    ],
    measuredAt: new Date().toISOString().slice(0, 10),
    machine: machineDescription(),
  };
}
