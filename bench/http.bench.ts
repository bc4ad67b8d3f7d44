import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { machineDescription, type BenchResult } from './report.ts';
import { fmt } from './stats.ts';

const root = new URL('..', import.meta.url).pathname;
const DURATION = 5;
const CONNECTIONS = 10;
const ROUNDS = 3;

interface Started {
  child: ChildProcess;
  url: string;
  token?: string;
}

/**
 * Start a server in its own process (so the load generator does not share its event loop) and
 * wait for its URL; with `tokenDir`, the host's local token is read from that data directory
 * (the log redacts it).
 */
function startChild(args: string[], env: Record<string, string> = {}, tokenDir?: string): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const url = /(?:listening|on) (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
      if (!url) return;
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      resolve({ child, url, ...(tokenDir ? { token: readFileSync(join(tokenDir, 'local-token'), 'utf8').trim() } : {}) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.stderr.on('data', () => undefined);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${text}`)));
  });
}

interface WriteStats {
  transactions: number;
  batches: number;
  /** Write transactions of facts and vectors (memory in the loop), outside group commit. */
  memory: number;
  running: number;
}

/** The CUGAr server's journal write counters (see bench/cugarServer.ts). */
function stats(server: Started): Promise<WriteStats> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const line = /stats (\{.*\})\n/.exec(text)?.[1];
      if (!line) return;
      server.child.stdout!.off('data', onData);
      resolve(JSON.parse(line) as WriteStats);
    };
    server.child.stdout!.on('data', onData);
    server.child.stdin!.write('stats\n');
  });
}

interface Load {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
  ok: number;
}

async function load(options: autocannon.Options): Promise<Load> {
  const result = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...options });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx, ok: result['2xx'] };
}

/** What the CPU profiles of the server (node --cpu-prof under the same load) showed; see docs/benchmarks.md. */
const PROFILE_NOTES = [
  "Profile of POST /v1/runs (202) in the server process (2026-11-28, node --cpu-prof under the same load): the journal's group-commit transactions about a sixth of its CPU (a quarter before the two changes below), planning about an eighth, memory in the loop (each run's facts, its reflection's vector and the recall search) about an eighth, canonical JSON of events about 7 %, garbage collection about 9 %, Hono and the Node adapter about a tenth; the rest is idle while the load generator and other processes hold the 2 shared cores. What is left is the per-run work of the orchestrator, the planner and memory, spread thin: no function holds more than a few per cent of its own.",
  'Journal writes, 2026-11-28: SQLite keeps events in insertion order (a rowid table with a unique index on run id and seq) instead of ordered by (run id, seq), and run ids sort by the time they were made (48 bits of milliseconds, then 80 random bits), so the appends of concurrent runs that share a transaction share a few table and index pages instead of a page each, each written to the WAL. Interleaved with the code before each change (same hour, load about 1.5, 2 rounds of 4 s each): completed runs/s 269–276 → 321–348 for the events in insertion order, then 341–353 → 424–438 for the ids; server CPU per run 3.3 → 2.35 ms. Then each run’s reflection vector joined the group commit as facts had (one transaction for the vectors of the runs ending in a turn, not one each): 322–409 → 450–452 completed runs/s in the same kind of A/B.',
  "How far acceptance alone is from the 25 % line (2026-11-29, load 1.2–1.5, the same servers measured alternately): with each run left undriven after its first event (a local change, not kept), POST /v1/runs answered 1,118–1,602 times a second at 10 connections with p99 22–25 ms, against 263–266 with the runs going on in the process, and GET /v1/health 6.8–9.5k. Acceptance on its own is so 6–8 % of hello-world's rate: a CPU profile of it spreads over the group-commit transaction (about a sixth, the run row and the new run's entry in the log of heads with it), the run's inputs copied and sealed in its first event (about a tenth), then Hono, the body and its validation, and the answer's socket writes in small shares. The 25 % line would need acceptance three to four times cheaper even with every run executed elsewhere, and p99 under 20 ms needs the runs' own work off the accepting process: 10 connections answered 263 times a second wait 38 ms each on average (Little's law). Two costs that profile showed are gone since: on Node a run's start asked Hono for the request's execution context, which has none there and threw (an error and its stack per run, about 3 % of acceptance), and each random id made its own getRandomValues call (2.6 µs; now 0.08 µs an id from a pool of 32 ids' bytes).",
  "GET /v1/health carries the eleven headers of Hono's secureHeaders() and a request id. Through the middleware the secure headers cost a hello-world on this stack a third to a half of its rate (row two); the Node host now writes them on the socket before the app answers (the same headers, checked equal by a test), which served health about 15 % faster than the middleware in an interleaved trial (20.3k against 17.6k req/s, medians of three 6 s rounds, load 1.3–2). The host writes the request id on the socket too (a valid client id echoed, else a new UUID, as Hono's requestId() chooses; checked by a test), so health's answer builds no header object: in a same-hour A/B the server spent 44 µs of CPU per health request against 47 µs before (medians, 3 × 3 s at 10 connections). The run that first measured it (2026-11-28) gave 51.0 %, at the goal's line: interleaved trials of the code before the change measured 48–54 % in the same hour, and the machine was slower than in the run before, earlier the same day (hello-world 29k–38k req/s against 43k). What is left of health's cost is Hono's middleware chain (rate limit, CORS and body checks, routing; health no longer arms the request timeout's timer) and the socket writes themselves (about half of the server's busy CPU in a profile: a write to loopback costs 25–45 µs here).",
];

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The round with the median req/s of `rounds`. */
const medianRound = (rounds: readonly Load[]): Load => rounds.find((r) => r.rps === median(rounds.map((x) => x.rps)))!;

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

/** Wait until the server drives no run any more; resolves with the time it happened. */
async function drained(server: Started, limitMs: number): Promise<number> {
  const until = performance.now() + limitMs;
  while (performance.now() < until) {
    if ((await stats(server)).running === 0) return performance.now();
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`runs still going after ${limitMs} ms`);
}

/** HTTP throughput and latency of the Node host against a hello-world ceiling. */
export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cugar-http-bench-'));
  const hello = await startChild(['--import', 'tsx', join(root, 'bench/helloServer.ts')]);
  const secureHello = await startChild(['--import', 'tsx', join(root, 'bench/helloServer.ts')], { HELLO_SECURE_HEADERS: '1' });
  const cugar = await startChild(['--import', 'tsx', join(root, 'bench/cugarServer.ts'), dir], { CUGAR_RATE_LIMIT: '1000000,1000000' }, dir);
  try {
    const auth = { authorization: `Bearer ${cugar.token}`, 'content-type': 'application/json' };
    // Hello-world (bare and with secure headers) and health alternate, so all see the same share of the machine's noise.
    const ceilings: Load[] = [];
    const secured: Load[] = [];
    const healths: Load[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      ceilings.push(await load({ url: `${hello.url}/hello` }));
      secured.push(await load({ url: `${secureHello.url}/hello` }));
      healths.push(await load({ url: `${cugar.url}/v1/health` }));
    }
    const ceiling = medianRound(ceilings);
    const secure = medianRound(secured);
    const health = medianRound(healths);
    const plan = await load({
      url: `${cugar.url}/v1/plan`,
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ goal: 'add 2 and 3 then multiply the result by 4', profile: 'demo' }),
    });
    const goal = JSON.stringify({ goal: 'add 2 and 3, then multiply the result by 4, then subtract 1 from the result', profile: 'demo' });
    const runs = await load({ url: `${cugar.url}/v1/runs`, method: 'POST', headers: { ...auth, prefer: 'wait=20' }, body: goal });
    const sse = await fanOut(cugar.url, cugar.token!, 100);
    // Last, because the runs it accepts go on after their responses: the clock stops once the
    // last of them has completed, which gives completed durable runs per second.
    await drained(cugar, 60_000);
    const before = await stats(cugar);
    const acceptedAt = performance.now();
    const accepted = await load({ url: `${cugar.url}/v1/runs`, method: 'POST', headers: auth, body: goal });
    const doneAt = await drained(cugar, 300_000);
    const after = await stats(cugar);
    const completedPerSecond = (accepted.ok / (doneAt - acceptedAt)) * 1000;
    const transactionsPerRun = (after.transactions - before.transactions) / accepted.ok;
    const memoryPerRun = (after.memory - before.memory) / accepted.ok;
    const batchesPerRun = (after.batches - before.batches) / accepted.ok;
    // Each round's health against the same round's hello-world, so a round disturbed by other work counts once.
    const healthShare = median(healths.map((h, i) => h.rps / ceilings[i]!.rps));
    const acceptedShare = accepted.rps / ceiling.rps;
    const row = (name: string, r: Load) => [name, fmt(r.rps, 0), fmt(r.p99, 1), String(r.errors + r.non2xx), `${fmt((r.rps / ceiling.rps) * 100, 1)} %`];
    const [one, five] = loadavg();
    return {
      name: 'http',
      title: 'HTTP API on the Node host (loopback)',
      method: `autocannon, ${CONNECTIONS} connections for ${DURATION} s per route, against the Node host as \`cugar serve\` starts it (bench/cugarServer.ts: SQLite in WAL mode with synchronous=NORMAL, its default; every run journaled) and a plain Hono hello-world on the same @hono/node-server stack, each server in its own process on 127.0.0.1. Hello-world, hello-world with Hono's secureHeaders() (the headers every API answer carries) and GET /v1/health alternate for ${ROUNDS} rounds; their rows are the median rounds. POST /v1/runs plans and runs a three-step goal: with \`Prefer: wait\` it answers with the result; without, it answers 202 Accepted once the run's first event is durable and the run goes on (measured last; the clock for completed runs stops when the last accepted run has completed). Transactions are counted by the SQLite store itself.`,
      columns: ['route', 'req/s', 'p99 ms', 'errors + non-2xx', 'of hello-world'],
      rows: [
        row('Hono hello-world (ceiling)', ceiling),
        row('Hono hello-world with secureHeaders() (reference)', secure),
        row('GET /v1/health', health),
        row('POST /v1/plan', plan),
        row('POST /v1/runs (3 steps, Prefer: wait — answers with the result)', runs),
        row('POST /v1/runs (202 Accepted)', accepted),
      ],
      notes: [
        `202 Accepted: ${accepted.ok.toLocaleString('en-US')} runs accepted in ${DURATION} s, all completed ${fmt((doneAt - acceptedAt) / 1000, 1)} s after the load began: ${fmt(completedPerSecond, 0)} completed durable 3-step runs/s; ${fmt(batchesPerRun, 1)} journal appends and ${fmt(transactionsPerRun, 2)} SQLite journal transactions per run (group commit across runs), and ${fmt(memoryPerRun, 2)} more for memory in the loop (each run's facts and its reflection's vector, written when it ends, each group-committed across runs).`,
        `SSE fan-out: 100 clients follow one run paused for approval; after the approval all ${sse.delivered} saw it complete within ${fmt(sse.allMs, 1)} ms (p99 ${fmt(sse.p99Ms, 1)} ms).`,
        `Rounds, hello-world / with secureHeaders() / health (req/s): ${ceilings.map((c, i) => `${fmt(c.rps, 0)} / ${fmt(secured[i]!.rps, 0)} / ${fmt(healths[i]!.rps, 0)}`).join('; ')}. GET /v1/health is ${fmt((health.rps / secure.rps) * 100, 1)} % of the hello-world that carries the same secure headers.`,
        ...PROFILE_NOTES,
        'The rate limiter is opened up for this run (CUGAR_RATE_LIMIT); its default is 50 requests/s per token with bursts of 100. With the default and the same load (2026-11-29), a refused request had cost the server 104–127 µs of CPU against about 66 µs for a served health check: the refusal was thrown (its stack captured, then the error handler and its redaction). It is now returned as the 429 answer, 79–113 µs in runs of the same kind, most of it the socket write.',
        'What the secure headers weigh on their own (2026-11-29): a plain Node server answering with 12 more headers of about 40 bytes used 10 µs more CPU a response (median of 6 alternating pairs of 4 s rounds; 2–28 µs) than without, against 36–56 µs for the answer without them. GET /v1/health carries 12 such headers (the secure headers and the request id) that the hello-world does not.',
        `Load average at the end of the run: ${fmt(one!, 2)} (1 min), ${fmt(five!, 2)} (5 min), on 2 cores shared with other work.`,
      ],
      targets: [
        {
          label: 'GET /v1/health vs hello-world (median of the rounds)',
          measured: `${fmt(healthShare * 100, 1)} %`,
          target: '≥ 50 %',
          met: healthShare >= 0.5,
        },
        { label: 'POST /v1/runs (202) vs hello-world', measured: `${fmt(acceptedShare * 100, 1)} %`, target: '≥ 25 %', met: acceptedShare >= 0.25 },
        { label: 'POST /v1/runs (202) p99', measured: `${fmt(accepted.p99, 1)} ms`, target: '< 20 ms', met: accepted.p99 < 20 },
        { label: 'completed durable 3-step runs/s', measured: fmt(completedPerSecond, 0), target: '≥ 2,000', met: completedPerSecond >= 2000 },
        {
          label: 'SQLite transactions per run under load (journal + memory in the loop)',
          measured: `${fmt(transactionsPerRun, 2)} + ${fmt(memoryPerRun, 2)}`,
          target: '≤ 2',
          met: transactionsPerRun + memoryPerRun <= 2,
        },
        { label: 'SSE fan-out to 100 clients delivered', measured: `${sse.delivered} of 100`, target: '100 of 100', met: sse.delivered === 100 },
      ],
      measuredAt: new Date().toISOString().slice(0, 10),
      machine: machineDescription(),
    };
  } finally {
    hello.child.kill('SIGTERM');
    secureHello.child.kill('SIGTERM');
    cugar.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}
