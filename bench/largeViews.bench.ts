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

/** `cugar serve` of the checkout at `checkout` in its own process, on a free loopback port, with its data in `dir`. */
function startServer(checkout: string, dir: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(checkout, 'src/cli/bin.mjs'), 'serve', '--port', '0', '--data-dir', dir], {
      cwd: checkout,
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
    child.on('exit', (code, signal) => {
      // After it started, an exit is reported here (the request in flight fails on its own); the benchmark stops it with SIGTERM.
      if (!child.killed) console.error(`  the server exited (${code ?? signal}): ${text.slice(-2000)}`);
      reject(new Error(`server exited with ${code ?? signal}: ${text}`));
    });
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
  /** Until the status line and headers arrived (fetch resolved). */
  headersMs: number;
  firstByteMs: number;
  /** Until the first byte of the view's first item (after the document's opening, e.g. `{"events":[`). */
  firstItemMs: number;
  lastByteMs: number;
  bytes: number;
  /** GET /v1/health latencies measured back to back while the view was in flight. */
  health: number[];
}

/** A view and where its first item starts: after `opening` in the body (0 when the body starts with it). */
interface View {
  name: string;
  path: string;
  accept?: string;
  opening?: string;
}

/** One request of `view`, timed to its headers, first byte, first item and last byte, with health checks sent back to back until it has ended. */
async function timeView(server: Server, view: View): Promise<Sample> {
  const headers: Record<string, string> = { authorization: `Bearer ${server.token}`, ...(view.accept ? { accept: view.accept } : {}) };
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
  const response = await fetch(`${server.url}${view.path}`, { headers });
  const headersMs = performance.now() - start;
  if (response.status !== 200) throw new Error(`${view.path} answered ${response.status}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let firstByteMs = Number.NaN;
  let firstItemMs = Number.NaN;
  let head = '';
  let bytes = 0;
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    const now = performance.now() - start;
    if (Number.isNaN(firstByteMs)) firstByteMs = now;
    bytes += value.byteLength;
    if (Number.isNaN(firstItemMs)) {
      head += decoder.decode(value, { stream: true });
      const at = view.opening ? head.indexOf(view.opening) : 0;
      if (at >= 0 && head.length > at + (view.opening?.length ?? 0)) firstItemMs = now;
    }
  }
  const lastByteMs = performance.now() - start;
  done = true;
  await probe;
  return { headersMs, firstByteMs, firstItemMs, lastByteMs, bytes, health };
}

/**
 * A checkout to measure beside this one (the same views of the same run): `LARGE_VIEWS_BASELINE`,
 * e.g. `git archive <commit> | tar -x -C /tmp/base` with node_modules linked in, named in the
 * table by `LARGE_VIEWS_BASELINE_LABEL` (e.g. the commit).
 */
const BASELINE = process.env['LARGE_VIEWS_BASELINE'];
const BASELINE_LABEL = process.env['LARGE_VIEWS_BASELINE_LABEL'] ?? BASELINE;

interface Host {
  label: string;
  server: Server;
  dir: string;
  base: string;
}

/** Time to first and last byte of every large view of a 10,000-step run, interleaved, medians; beside a baseline checkout when given. */
export async function run(): Promise<BenchResult> {
  const hosts: Host[] = [];
  try {
    for (const [label, checkout] of [['this checkout', root], ...(BASELINE ? [[`baseline (${BASELINE_LABEL})`, BASELINE]] : [])] as Array<[string, string]>) {
      const dir = mkdtempSync(join(tmpdir(), 'cugar-views-bench-'));
      const server = await startServer(checkout, dir);
      hosts.push({ label, server, dir, base: '' });
    }
    let events = 0;
    for (const host of hosts) {
      const made = await largeRun(host.server);
      host.base = `/v1/runs/${encodeURIComponent(made.runId)}`;
      events = made.events;
    }
    const views = (base: string): View[] => [
      { name: 'journal (JSON, redacted)', path: `${base}/journal`, opening: '{"events":[' },
      { name: 'journal (NDJSON, redacted)', path: `${base}/journal?format=ndjson` },
      { name: 'journal (NDJSON, raw)', path: `${base}/journal?format=ndjson&raw=true` },
      { name: 'trace', path: `${base}/trace`, opening: '{"records":[' },
      { name: 'OTLP', path: `${base}/otlp`, opening: '"spans":[' },
      { name: 'events (SSE replay)', path: `${base}/events`, accept: 'text/event-stream' },
      { name: 'outcome (GET /v1/runs/{id})', path: base },
    ];
    const names = views('').map((view) => view.name);
    // One warm-up request per view and host, then rounds that visit every view on every host in turn.
    for (const host of hosts) for (const view of views(host.base)) await timeView(host.server, view);
    const samples = new Map(hosts.flatMap((host) => names.map((name) => [`${host.label}|${name}`, [] as Sample[]])));
    for (let round = 0; round < ROUNDS; round++)
      for (const [i, name] of names.entries())
        for (const host of hosts) samples.get(`${host.label}|${name}`)!.push(await timeView(host.server, views(host.base)[i]!));
    const measured = hosts.flatMap((host) =>
      names.map((name) => {
        const list = samples.get(`${host.label}|${name}`)!;
        const health = list.flatMap((s) => s.health);
        return {
          host: host.label,
          name,
          headers: median(list.map((s) => s.headersMs)),
          firstByte: median(list.map((s) => s.firstByteMs)),
          firstItem: median(list.map((s) => s.firstItemMs)),
          lastByte: median(list.map((s) => s.lastByteMs)),
          bytes: median(list.map((s) => s.bytes)),
          healthMedian: median(health),
          healthMax: Math.max(...health),
        };
      }),
    );
    const largest = await largestEvents(hosts[0]!);
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ');
    console.error(`  load average (1/5/15 min): ${load}`);
    const outcome = measured.find((m) => m.host === hosts[0]!.label && m.name.startsWith('outcome'))!;
    const goalViews = measured.filter((m) => m.host === hosts[0]!.label && !m.name.startsWith('outcome') && !m.name.startsWith('events'));
    return {
      name: 'large-views',
      title: `Large runs stay interactive (the views of a ${STEPS.toLocaleString('en-US')}-step run)`,
      method: `\`cugar serve\` in its own process (SQLite, loopback) runs an explicit plan of ${STEPS.toLocaleString('en-US')} \`add\` steps (${events.toLocaleString('en-US')} journal events) through POST /v1/runs; then each view is requested with fetch from the benchmark's process and timed to its headers, its first byte, the first byte of its first item (after the document's opening, such as \`{"events":[\`) and its last byte. One warm-up request per view, then ${ROUNDS} rounds visiting every view in turn; medians. While each view is in flight, GET /v1/health is sent back to back (5 ms apart): its median and worst latency over all rounds show whether the event loop stays free.${BASELINE ? ' The baseline checkout (LARGE_VIEWS_BASELINE) runs the same plan in a server of its own, measured in the same rounds, interleaved.' : ' No baseline checkout was given (LARGE_VIEWS_BASELINE), so only this checkout is measured.'}`,
      columns: ['view', 'host', 'headers ms', 'first byte ms', 'first item ms', 'last byte ms', 'body', 'health while sending: median ms', 'worst ms'],
      rows: measured.map((m) => [
        m.name,
        m.host,
        fmt(m.headers, 1),
        fmt(m.firstByte, 1),
        fmt(m.firstItem, 1),
        fmt(m.lastByte, 1),
        `${fmt(m.bytes / 1e6, 2)} MB`,
        fmt(m.healthMedian, 1),
        fmt(m.healthMax, 1),
      ]),
      targets: goalViews.map((m) => ({
        label: `${m.name}: first byte`,
        measured: `${fmt(m.firstByte, 1)} ms`,
        target: `< ${FIRST_BYTE_GOAL_MS} ms`,
        met: m.firstByte < FIRST_BYTE_GOAL_MS,
      })),
      notes: [
        `Load average (1, 5, 15 min) at the end of the run: ${load}, on a 2-core machine shared with other work: every figure is inflated by it.`,
        `The run's two largest events are its first (the run's inputs, which hold the whole plan: ${fmt(largest[0]! / 1e6, 2)} MB in the journal's NDJSON) and its plan (${fmt(largest[1]! / 1e6, 2)} MB). The first item of a view is derived from the first. The redacted NDJSON journal writes each line in pieces as its data is redacted (the hash, which comes after the data in canonical key order, last), so its first byte does not wait for the whole first event; the other views still redact and serialise each of those two events in one piece, which is where their worst health latencies come from.`,
        ...(hosts[1]
          ? [
              `Last byte against the baseline (total time to send each view): ${goalViews
                .map((m) => {
                  const before = measured.find((b) => b.host === hosts[1]!.label && b.name === m.name)!;
                  return `${m.name} ${fmt(m.lastByte / before.lastByte, 2)}×`;
                })
                .join(
                  ', ',
                )}. Both checkouts are measured in the same rounds on a shared machine: a view that is sent the same way by both shows how far that alone moves the ratio.`,
            ]
          : []),
        `The events stream (SSE) replays the journal page by page, as the other views read it. GET /v1/runs/{id} is not streamed: the outcome is folded from the whole journal in the orchestrator (it answers ${fmt(outcome.bytes / 1e6, 2)} MB but holds the loop while it folds).`,
      ],
      measuredAt: new Date().toISOString().slice(0, 10),
      machine: machineDescription(),
    };
  } finally {
    for (const host of hosts) host.server.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    for (const host of hosts) rmSync(host.dir, { recursive: true, force: true });
  }
}

/** The byte lengths of the two longest lines of the run's raw NDJSON journal, longest first. */
async function largestEvents(host: Host): Promise<number[]> {
  const text = await (
    await fetch(`${host.server.url}${host.base}/journal?format=ndjson&raw=true`, { headers: { authorization: `Bearer ${host.server.token}` } })
  ).text();
  return text
    .split('\n')
    .map((line) => Buffer.byteLength(line))
    .sort((a, b) => b - a)
    .slice(0, 2);
}
