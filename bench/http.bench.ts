import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { machineDescription, type BenchResult } from './report.ts';
import { fmt } from './stats.ts';

const root = new URL('..', import.meta.url).pathname;
const DURATION = 5;
const CONNECTIONS = 10;

interface Started {
  child: ChildProcess;
  url: string;
  token?: string;
}

/** Start a server in its own process (so the load generator does not share its event loop) and wait for its URL. */
function startChild(args: string[], env: Record<string, string> = {}): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const url = /(?:listening|on) (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
      const token = /local token: (\w+)/.exec(text)?.[1];
      if (url && (token || args.some((a) => a.includes('helloServer')))) resolve({ child, url, ...(token ? { token } : {}) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${text}`)));
  });
}

async function load(options: autocannon.Options): Promise<{ rps: number; p99: number; errors: number; non2xx: number }> {
  const result = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...options });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

/** SSE fan-out: `clients` streams follow one paused run; after the approval, how long until each has seen the run complete. */
async function fanOut(url: string, token: string, clients: number): Promise<{ allMs: number; p99Ms: number; delivered: number }> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const paused = (await (
    await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { ...headers, prefer: 'wait=20' },
      body: JSON.stringify({ goal: 'send_message(to="ops", text="fan-out")', profile: 'demo' }),
    })
  ).json()) as { runId: string; head: { seq: number }; pendingApproval: { approvalId: string } };
  let approvedAt = 0;
  const done: number[] = [];
  const streams = await Promise.all(
    Array.from({ length: clients }, async () => {
      const response = await fetch(`${url}/v1/runs/${paused.runId}/events`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      // Read until the stream has caught up with the journal, then hand back the rest of the work.
      while (!text.includes(`id: ${paused.head.seq}\n`)) text += decoder.decode((await reader.read()).value ?? new Uint8Array());
      return async () => {
        while (!text.includes('event: run_completed')) {
          const { value, done: end } = await reader.read();
          if (end) return;
          text += decoder.decode(value);
        }
        done.push(performance.now() - approvedAt);
        await reader.cancel();
      };
    }),
  );
  approvedAt = performance.now();
  const finishing = streams.map((rest) => rest());
  await fetch(`${url}/v1/approvals/${encodeURIComponent(paused.pendingApproval.approvalId)}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ decision: 'approve' }),
  });
  await Promise.all(finishing);
  const sorted = [...done].sort((a, b) => a - b);
  return { allMs: sorted.at(-1) ?? Number.NaN, p99Ms: sorted[Math.ceil(sorted.length * 0.99) - 1] ?? Number.NaN, delivered: done.length };
}

/** HTTP throughput and latency of the Node host against a hello-world ceiling. */
export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cugar-http-bench-'));
  const hello = await startChild(['--import', 'tsx', join(root, 'bench/helloServer.ts')]);
  const cugar = await startChild([join(root, 'src/cli/bin.mjs'), 'serve', '--port', '0', '--data-dir', dir], { CUGAR_RATE_LIMIT: '1000000,1000000' });
  try {
    const auth = { authorization: `Bearer ${cugar.token}`, 'content-type': 'application/json' };
    const ceiling = await load({ url: `${hello.url}/hello` });
    const health = await load({ url: `${cugar.url}/v1/health` });
    const plan = await load({
      url: `${cugar.url}/v1/plan`,
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ goal: 'add 2 and 3 then multiply the result by 4', profile: 'demo' }),
    });
    const goal = JSON.stringify({ goal: 'add 2 and 3, then multiply the result by 4, then subtract 1 from the result', profile: 'demo' });
    const runs = await load({ url: `${cugar.url}/v1/runs`, method: 'POST', headers: { ...auth, prefer: 'wait=20' }, body: goal });
    const share = runs.rps / ceiling.rps;
    const sse = await fanOut(cugar.url, cugar.token!, 100);
    // Last, because the runs it accepts go on after their responses and load the server.
    const accepted = await load({ url: `${cugar.url}/v1/runs`, method: 'POST', headers: auth, body: goal });
    const row = (name: string, r: Awaited<ReturnType<typeof load>>) => [
      name,
      fmt(r.rps, 0),
      fmt(r.p99, 1),
      String(r.errors + r.non2xx),
      `${fmt((r.rps / ceiling.rps) * 100, 1)} %`,
    ];
    return {
      name: 'http',
      title: 'HTTP API on the Node host (loopback)',
      method: `autocannon, ${CONNECTIONS} connections for ${DURATION} s per route, against \`cugar serve\` (SQLite in WAL mode with synchronous=NORMAL, its default; every run journaled) and a plain Hono hello-world on the same @hono/node-server stack, each server in its own process on 127.0.0.1. POST /v1/runs plans and runs a three-step goal: with \`Prefer: wait\` it answers with the result; without, it answers 202 Accepted once the run's first event is durable and the run goes on (measured last, since those runs keep the server busy after the load stops).`,
      columns: ['route', 'req/s', 'p99 ms', 'errors + non-2xx', 'of hello-world'],
      rows: [
        row('Hono hello-world (ceiling)', ceiling),
        row('GET /v1/health', health),
        row('POST /v1/plan', plan),
        row('POST /v1/runs (3 steps, Prefer: wait — answers with the result)', runs),
        row('POST /v1/runs (202 Accepted)', accepted),
      ],
      notes: [
        `SSE fan-out: 100 clients follow one run paused for approval; after the approval all ${sse.delivered} saw it complete within ${fmt(sse.allMs, 1)} ms (p99 ${fmt(sse.p99Ms, 1)} ms).`,
        'The rate limiter is opened up for this run (CUGAR_RATE_LIMIT); its default is 50 requests/s per token with bursts of 100.',
      ],
      targets: [
        { label: 'POST /v1/runs vs hello-world', measured: `${fmt(share * 100, 1)} %`, target: '≥ 30 %', met: share >= 0.3 },
        { label: 'POST /v1/runs p99', measured: `${fmt(runs.p99, 1)} ms`, target: '< 20 ms', met: runs.p99 < 20 },
        { label: 'SSE fan-out to 100 clients delivered', measured: `${sse.delivered} of 100`, target: '100 of 100', met: sse.delivered === 100 },
      ],
      measuredAt: new Date().toISOString().slice(0, 10),
      machine: machineDescription(),
    };
  } finally {
    hello.child.kill('SIGTERM');
    cugar.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}
