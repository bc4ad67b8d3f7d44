// Large runs stay interactive: the views of a 10,000-step run (journal, trace, OTLP, events)
// served by `cugar serve` on loopback, timed to the first and the last byte, with the latency
// of GET /v1/health measured while each view is being sent.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineDescription, type BenchResult } from './report.ts';
import { fmt, percentile } from './stats.ts';

const root = new URL('..', import.meta.url).pathname;
const STEPS = 10_000;
const ROUNDS = 7;
const FIRST_BYTE_GOAL_MS = 100;

const median = (samples: readonly number[]) => percentile(samples, 50);

interface Server {
  child: ChildProcess;
  url: string;
  token: string;
}

/** `cugar serve` in its own process, on a free loopback port, with its data in `dir`. */
function startServer(dir: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'src/cli/bin.mjs'), 'serve', '--port', '0', '--data-dir', dir], {
      cwd: root,
      env: { ...process.env, CUGAR_RATE_LIMIT: '1000000,1000000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const url = /(?:listening|on) (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
      // The log redacts the token; the host keeps it in the data directory.
      if (url && /local token:/.test(text)) resolve({ child, url, token: readFileSync(join(dir, 'local-token'), 'utf8').trim() });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${text}`)));
  });
}

/** Start a run of `STEPS` additions through the API and wait until it has completed. */
async function largeRun(server: Server): Promise<{ runId: string; events: number }> {
  const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  const plan = Array.from({ length: STEPS }, (_, i) => ({ tool: 'add', input: { a: i, b: 1 } }));
  const response = await fetch(`${server.url}/v1/runs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ goal: `add ${STEPS} pairs`, profile: 'demo', plan }),
  });
  if (response.status !== 202 && response.status !== 200) throw new Error(`POST /v1/runs answered ${response.status}: ${await response.text()}`);
  const { runId } = (await response.json()) as { runId: string };
  for (;;) {
    const run = (await (await fetch(`${server.url}/v1/runs/${runId}`, { headers })).json()) as { status: string; head?: { seq: number } };
    if (run.status === 'completed') return { runId, events: (run.head?.seq ?? -1) + 1 };
    if (run.status !== 'running') throw new Error(`the ${STEPS}-step run ended ${run.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface Sample {
  firstByteMs: number;
  lastByteMs: number;
  bytes: number;
  /** GET /v1/health latencies measured back to back while the view was in flight. */
  health: number[];
}

/** One request of `path`, timed to its first and last byte, with health checks sent back to back until it has ended. */
async function timeView(server: Server, path: string, accept?: string): Promise<Sample> {
  const headers: Record<string, string> = { authorization: `Bearer ${server.token}`, ...(accept ? { accept } : {}) };
  let done = false;
  const health: number[] = [];
  const probe = (async () => {
    while (!done) {
      const start = performance.now();
      await (await fetch(`${server.url}/v1/health`)).arrayBuffer();
      if (!done) health.push(performance.now() - start);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const start = performance.now();
  const response = await fetch(`${server.url}${path}`, { headers });
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  const reader = response.body!.getReader();
  let firstByteMs = Number.NaN;
  let bytes = 0;
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - start;
    bytes += value.byteLength;
  }
  const lastByteMs = performance.now() - start;
  done = true;
  await probe;
  return { firstByteMs, lastByteMs, bytes, health };
}

/** Time to first and last byte of every large view of a 10,000-step run, interleaved, medians. */
export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cugar-views-bench-'));
  const server = await startServer(dir);
  try {
    const { runId, events } = await largeRun(server);
    const base = `/v1/runs/${encodeURIComponent(runId)}`;
    const views: Array<{ name: string; path: string; accept?: string }> = [
      { name: 'journal (JSON, redacted)', path: `${base}/journal` },
      { name: 'journal (NDJSON, redacted)', path: `${base}/journal?format=ndjson` },
      { name: 'journal (NDJSON, raw)', path: `${base}/journal?format=ndjson&raw=true` },
      { name: 'trace', path: `${base}/trace` },
      { name: 'OTLP', path: `${base}/otlp` },
      { name: 'events (SSE replay)', path: `${base}/events`, accept: 'text/event-stream' },
      { name: 'outcome (GET /v1/runs/{id})', path: base },
    ];
    // One warm-up request per view, then rounds that visit every view in turn.
    for (const view of views) await timeView(server, view.path, view.accept);
    const samples = new Map(views.map((view) => [view.name, [] as Sample[]]));
    for (let round = 0; round < ROUNDS; round++) for (const view of views) samples.get(view.name)!.push(await timeView(server, view.path, view.accept));
    const measured = views.map((view) => {
      const list = samples.get(view.name)!;
      const health = list.flatMap((s) => s.health);
      return {
        name: view.name,
        firstByte: median(list.map((s) => s.firstByteMs)),
        lastByte: median(list.map((s) => s.lastByteMs)),
        bytes: median(list.map((s) => s.bytes)),
        healthMedian: median(health),
        healthMax: Math.max(...health),
      };
    });
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ');
    console.error(`  load average (1/5/15 min): ${load}`);
    const goalViews = measured.filter((m) => !m.name.startsWith('outcome') && !m.name.startsWith('events'));
    return {
      name: 'large-views',
      title: `Large runs stay interactive (the views of a ${STEPS.toLocaleString('en-US')}-step run)`,
      method: `\`cugar serve\` in its own process (SQLite, loopback) runs an explicit plan of ${STEPS.toLocaleString('en-US')} \`add\` steps (${events.toLocaleString('en-US')} journal events) through POST /v1/runs; then each view is requested with fetch from the benchmark's process and timed to its first and its last byte. One warm-up request per view, then ${ROUNDS} rounds visiting every view in turn; medians. While each view is in flight, GET /v1/health is sent back to back (5 ms apart): its median and worst latency over all rounds show whether the event loop stays free.`,
      columns: ['view', 'first byte ms', 'last byte ms', 'body', 'health while sending: median ms', 'worst ms'],
      rows: measured.map((m) => [m.name, fmt(m.firstByte, 1), fmt(m.lastByte, 1), `${fmt(m.bytes / 1e6, 2)} MB`, fmt(m.healthMedian, 1), fmt(m.healthMax, 1)]),
      targets: goalViews.map((m) => ({
        label: `${m.name}: first byte`,
        measured: `${fmt(m.firstByte, 1)} ms`,
        target: `< ${FIRST_BYTE_GOAL_MS} ms`,
        met: m.firstByte < FIRST_BYTE_GOAL_MS,
      })),
      notes: [`Load average (1, 5, 15 min) at the end of the run: ${load}, on a machine shared with other work.`],
      measuredAt: new Date().toISOString().slice(0, 10),
      machine: machineDescription(),
    };
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dir, { recursive: true, force: true });
  }
}
