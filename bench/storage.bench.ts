import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryVectorBackend } from '../src/core/index.ts';
import { SqliteStore } from '../src/edge/sqliteStore.ts';
import { measureIsolated } from './isolate.ts';
import { machineDescription, type BenchResult } from './report.ts';
import { fmt, percentile } from './stats.ts';
import { DOCS, EVENTS_PER_RUN, RUNS, appends, coldQuery, ingest, type StorageFigures } from './storageWorkload.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../tests/support/chromium.ts';

const dir = process.env['CUGAR_BENCH_DIR'] ?? '';
/** Restarts (new processes, reloaded pages) measured with current snapshots; the figure is their median. */
const COLD_ROUNDS = 5;
const median = (samples: readonly number[]) => percentile(samples, 50);

/** Alternating passes of group commit and one transaction per append; the figures are their medians. */
const APPEND_ROUNDS = 3;
/** How long each process (and the page) appends untimed in a mode before its timed pass. */
const WARM_UP_MS = 1500;
const middle = (samples: readonly number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

/** Each engine in its own process. */
export const engines: Record<string, () => Promise<StorageFigures>> = {
  async memory() {
    const vectors = new InMemoryVectorBackend(256);
    await vectors.connect();
    return { ingestDocsPerSecond: await ingest(vectors) };
  },
  async sqliteIngest() {
    const store = new SqliteStore(join(dir, 'ingest.db'));
    const result = { ingestDocsPerSecond: await ingest(store.vectors(256)) };
    await store.close();
    return result;
  },
  async sqliteColdQuery() {
    const store = new SqliteStore(join(dir, 'ingest.db'));
    const result = await coldQuery(store.vectors(256));
    await store.close();
    return result;
  },
  async sqliteGroupCommit() {
    await warmUp(true);
    const store = new SqliteStore(join(dir, `group-${process.pid}.db`), { groupCommit: true });
    const result = { appendEventsPerSecond: await appends(store) };
    await store.close();
    return result;
  },
  async sqliteEachCommit() {
    await warmUp(false);
    const store = new SqliteStore(join(dir, `each-${process.pid}.db`), { groupCommit: false });
    const result = { appendEventsPerSecond: await appends(store) };
    await store.close();
    return result;
  },
  async chromium() {
    return runInChromium();
  },
};

/**
 * Untimed passes for WARM_UP_MS first, so both modes are measured with warm code: a group-commit
 * pass takes about a tenth of a second, and after one pass its code was still warming (passes 5–10
 * of one process ran a quarter faster than its second).
 */
async function warmUp(groupCommit: boolean): Promise<void> {
  const started = performance.now();
  let pass = 0;
  do {
    const store = new SqliteStore(join(dir, `warm-${groupCommit}-${process.pid}-${pass++}.db`), { groupCommit });
    await appends(store);
    await store.close();
  } while (performance.now() - started < WARM_UP_MS);
}

async function runInChromium(): Promise<Record<string, number>> {
  const { build } = await import('esbuild');
  const { chromium } = await import('playwright');
  const bundle = await build({
    entryPoints: [new URL('./browser/storagePage.ts', import.meta.url).pathname],
    bundle: true,
    format: 'iife',
    write: false,
    platform: 'browser',
    target: 'chrome120',
  });
  const script = bundle.outputFiles[0]!.text;
  const servers: Server[] = [];
  // Each server is an origin of its own, and so a storage backend of its own in the browser.
  const origin = async (): Promise<string> => {
    const server = createServer((req, res) => {
      if (req.url === '/bench.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bench</title><script src="/bench.js"></script>');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  };
  const home = await origin();
  // A profile on disk, as a user's browser keeps one: a context without one (`browser.newPage()`)
  // keeps IndexedDB and the origin private file system in memory, where a strict-durability commit
  // never waits for the disk (until 2026-11-28 this bench measured that: 304 per-append events/s
  // in memory against about 170 on disk).
  const profile = mkdtempSync(join(tmpdir(), 'cugar-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await context.newPage();
    await page.goto(home);
    type Api = {
      cugarBench: {
        ingest(): Promise<number>;
        appends(group: boolean): Promise<number>;
        coldQuery(): Promise<{ coldFirstQueryMs: number; warmMedianQueryMs: number }>;
      };
    };
    const ingestRate = await page.evaluate(() => (globalThis as unknown as Api).cugarBench.ingest());
    // Every append pass runs in an origin of its own: a database deleted after its pass still weighs
    // on the origin's later passes in Chromium (six group-commit passes in one origin went 1,791 → 629
    // events/s, each in a fresh origin 1,725–2,051). Untimed passes of each mode for WARM_UP_MS come
    // first (they warm the browser's storage process; the page's code starts afresh in each origin);
    // then the modes alternate, and the medians count.
    const pass = async (group: boolean): Promise<number> => {
      await page.goto(await origin());
      return page.evaluate((g) => (globalThis as unknown as Api).cugarBench.appends(g), group);
    };
    for (const group of [true, false]) {
      const started = performance.now();
      do await pass(group);
      while (performance.now() - started < WARM_UP_MS);
    }
    const groups: number[] = [];
    const eaches: number[] = [];
    for (let round = 0; round < APPEND_ROUNDS; round++) {
      groups.push(await pass(true));
      eaches.push(await pass(false));
    }
    const [group, each] = [middle(groups), middle(eaches)];
    await page.goto(home);
    // A real reload: a fresh page loads the persisted corpus from IndexedDB. The first reload
    // after the ingest finds snapshots older than the last writes (rebuilds, then snapshots);
    // the reloads after it load the snapshots.
    await page.reload();
    const stale = await page.evaluate(() => (globalThis as unknown as Api).cugarBench.coldQuery());
    const current: Array<{ coldFirstQueryMs: number; warmMedianQueryMs: number }> = [];
    for (let round = 0; round < COLD_ROUNDS; round++) {
      await page.reload();
      current.push(await page.evaluate(() => (globalThis as unknown as Api).cugarBench.coldQuery()));
    }
    return {
      ingestDocsPerSecond: ingestRate,
      groupEventsPerSecond: group,
      eachEventsPerSecond: each,
      staleFirstQueryMs: stale.coldFirstQueryMs,
      coldFirstQueryMs: median(current.map((c) => c.coldFirstQueryMs)),
      warmMedianQueryMs: median(current.map((c) => c.warmMedianQueryMs)),
    };
  } finally {
    await context.close();
    for (const server of servers) server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Ingest, durable appends and cold queries on every store. */
export async function run(): Promise<BenchResult> {
  const work = mkdtempSync(join(tmpdir(), 'cugar-storage-bench-'));
  process.env['CUGAR_BENCH_DIR'] = work;
  try {
    const m = (name: string) => measureIsolated<StorageFigures & Record<string, number>>('storage.bench.ts', name);
    const memory = m('memory');
    const sqliteIngest = m('sqliteIngest');
    // The first start after the ingest finds snapshots older than the last writes; the starts after it load them.
    const sqliteStale = m('sqliteColdQuery');
    const sqliteRounds = Array.from({ length: COLD_ROUNDS }, () => m('sqliteColdQuery'));
    const sqliteCold = {
      coldFirstQueryMs: median(sqliteRounds.map((r) => r.coldFirstQueryMs!)),
      warmMedianQueryMs: median(sqliteRounds.map((r) => r.warmMedianQueryMs!)),
    };
    // The two modes alternate, each pass in a process of its own; the medians count.
    const appendRounds = Array.from({ length: APPEND_ROUNDS }, () => [m('sqliteGroupCommit'), m('sqliteEachCommit')] as const);
    const group = { appendEventsPerSecond: middle(appendRounds.map(([g]) => g.appendEventsPerSecond!)) };
    const each = { appendEventsPerSecond: middle(appendRounds.map(([, e]) => e.appendEventsPerSecond!)) };
    const browser = m('chromium');
    const sqliteRatio = group.appendEventsPerSecond! / each.appendEventsPerSecond!;
    const idbRatio = browser['groupEventsPerSecond']! / browser['eachEventsPerSecond']!;
    return {
      name: 'storage',
      title: 'Storage: ingest, durable journal appends, queries after a cold start',
      method: `Ingest: ${DOCS.toLocaleString('en-US')} synthetic 1 KiB documents through RagLoader (one chunk each: extract, chunk, embed, store vectors and keyword index). Appends: ${RUNS} concurrent runs each appending ${EVENTS_PER_RUN} single-event batches, with group commit (appends of one turn share a transaction) and with one transaction per append; SQLite with synchronous=FULL, IndexedDB with strict durability in a Chromium profile on disk. Cold query: a new process (SQLite) or a reloaded page (IndexedDB) opens the persisted corpus and runs its first query (hybrid, k = 5). With current snapshots it reads the vectors and the keyword index from one snapshot each (SQLite stores a large one in parts of 1 MiB, IndexedDB as a file of the origin private file system) (median of ${COLD_ROUNDS} restarts); the first restart after the ingest finds them older than the last writes (the ingest snapshots only when a batch is at least a quarter of the profile), so it loads every row, rebuilds the keyword index and snapshots both. Each Node engine runs in its own process; the IndexedDB figures come from Debian's Chromium driven by Playwright over loopback.`,
      columns: [
        'store',
        'ingest docs/s',
        'appends events/s (group commit)',
        'appends events/s (per append)',
        'first query after a restart ms',
        'first query after a restart, snapshots stale ms',
        'warm query median ms',
      ],
      rows: [
        ['in memory', fmt(memory.ingestDocsPerSecond!, 0), '—', '—', '—', '—', '—'],
        [
          'SQLite (better-sqlite3, WAL)',
          fmt(sqliteIngest.ingestDocsPerSecond!, 0),
          fmt(group.appendEventsPerSecond!, 0),
          fmt(each.appendEventsPerSecond!, 0),
          fmt(sqliteCold.coldFirstQueryMs),
          fmt(sqliteStale.coldFirstQueryMs!),
          fmt(sqliteCold.warmMedianQueryMs),
        ],
        [
          'IndexedDB (Dexie, Chromium)',
          fmt(browser['ingestDocsPerSecond']!, 0),
          fmt(browser['groupEventsPerSecond']!, 0),
          fmt(browser['eachEventsPerSecond']!, 0),
          fmt(browser['coldFirstQueryMs']!),
          fmt(browser['staleFirstQueryMs']!),
          fmt(browser['warmMedianQueryMs']!),
        ],
      ],
      targets: [
        { label: 'SQLite group commit vs per-append transactions', measured: `${fmt(sqliteRatio, 2)}×`, target: '≥ 10×', met: sqliteRatio >= 10 },
        { label: 'IndexedDB group commit vs per-append transactions', measured: `${fmt(idbRatio, 2)}×`, target: '≥ 10×', met: idbRatio >= 10 },
        {
          label: 'SQLite: first query after a restart, 10k documents',
          measured: `${fmt(sqliteCold.coldFirstQueryMs)} ms`,
          target: '≤ 100 ms',
          met: sqliteCold.coldFirstQueryMs <= 100,
        },
        {
          label: 'IndexedDB: first query after a reload, 10k documents',
          measured: `${fmt(browser['coldFirstQueryMs']!)} ms`,
          target: '≤ 100 ms',
          met: browser['coldFirstQueryMs']! <= 100,
        },
      ],
      notes: [
        'Zero events lost across kills is checked by the test suite (200 SIGKILLs) and by `npm run soak` (1,000).',
        `Appends: medians of ${APPEND_ROUNDS} alternating passes per mode, each after ${WARM_UP_MS / 1000} s of untimed passes of its mode (a process of its own per pass in SQLite; in IndexedDB an origin of its own per pass: a database deleted after its pass still weighed on the origin’s later ones, six group-commit passes in one origin going 1,791 → 629 events/s), events sealed before the clock starts. A SQLite group is written without a savepoint per batch (only a write failing mid-batch sends it back through savepoints), and SQLite keeps events in insertion order (a rowid table with a unique index on run id and seq), so a group's 50 appends share a few pages at the table's end (798 WAL frames a pass against 3,716 with the table ordered by run id and seq). An IndexedDB transaction takes only the object stores its group writes.`,
        `Since the last run before these changes (2026-11-28: SQLite group commit 7.7×, IndexedDB 5.5× in memory): (1) the IndexedDB figures come from a Chromium profile on disk, as a user’s browser keeps one. Until then the page ran in a context without a profile, where Chromium keeps IndexedDB and the origin private file system in memory and a strict-durability commit never waits for the disk: per-append transactions ran 304 events/s there, against ${fmt(browser['eachEventsPerSecond']!, 0)} in this run. (2) An IndexedDB append writes no index entries that nothing reads: the events lost their run-id index (a run’s events are a range of the primary key) and the runs their profile, trace-id and creation-time indexes (listing filters those in memory; only status selects rows). The upgrade drops them and keeps the rows. In alternating passes of the two builds (4 rounds, load about 2): group commit 1,609 → 1,946 events/s on disk (per append 177 → 168, so 9.1× → 11.6×), and 1,523 → 1,925 in memory. (3) SQLite updates a run’s row after the run’s first append instead of an insert that collides on the run id and then updates (the insert is kept for a row found missing): group commit 19.1k → 20.5k events/s, medians of 4 alternating processes of 20 passes each. (4) A batch carries the canonical JSON of its events’ data, as sealing hashed it, and SQLite writes that text instead of canonicalising the data again (the workload’s batches carry it, as the orchestrator’s do): CPU per group-committed append 47.7 → 42.4 µs, medians of 5 alternating processes; in wall time, about 4 % more events/s, since each group also waits for its sync.`,
        'What is left in group commit. SQLite: a group of 50 single-event appends writes about 20 WAL pages and syncs them (about 1 ms here, against 0.4 ms for one append’s 4 pages), and each event costs an insert into the table and its index, plus an update of its run’s row (the same statements alone, without the store around them, run about 25k events/s on this machine; without the run rows about 42k). Group commit is bound by the CPU, so its ratio falls as other work takes the two cores: 10.6–11.9× in quieter runs, 7.7× at load 2.6. Syncing the log off the thread did not raise it (2026-11-28: SQLite committing a group without a sync, then an fdatasync of the log on the thread pool before any of its appends resolves, the next group committing meanwhile): each run of the workload waits for its append before making the next, so the next group cannot form before the sync is done. Alternating with the code without it, 22.1k, 25.5k and 19.9k events/s against 22.5k, 21.0k and 21.1k (medians of 9 passes each); accepted runs/s over HTTP did not move either (about 180–200 both ways, with a loader starting the server). Not kept. IndexedDB: Chromium spends about 150–200 µs on each request of a transaction, whatever its size (the same 50 adds of tiny records ran no faster), so a group of 50 appends is about 100 requests (an event and a run row each) before its flush. Writing a group as one record would be about ten times faster in the raw API (18–27k events/s); that is a change of the journal’s layout in IndexedDB, not made here.',
        `Load average (1 min) when the measurement ended: ${loadavg()[0]!.toFixed(2)} on ${cpus().length} cores, shared with other work.`,
        'Snapshots: every write to a profile’s vectors counts a generation in the same transaction; the vector and keyword snapshots are stamped with it and used only while it has not moved, otherwise the rows are read and the keyword index rebuilt (the stale column, which also writes both snapshots again). The vector snapshot (version 3) holds ids and floats only: the metadata (the chunks’ text, 11 of 21 MB at 10k documents) stays in the rows, and a query reads it for the k hits it returns (the vector search is asked for hits without metadata, and keeps to documents by the keyword index). The index keeps the snapshot’s floats as its storage (`loadStored`: the ids’ map and a check of every value’s exponent bits for NaN and infinities, four values a pass without a branch; no copy, no second normalisation). SQLite keeps a snapshot over 1 MiB in parts of 1 MiB and hands them back unjoined; at 256 dimensions each part is one of the index’s chunks. The keyword snapshot (version 3) keeps its ids sorted (a document’s row by binary search, no map built at load) and its postings as varints, read from the parts unjoined and decoded a term at a time when a query first asks for it: 2.2 MB at 10k documents (version 2: 3.1 MB, version 1: 8.0 MB). IndexedDB keeps a snapshot of 256 KiB or more as a file of the origin private file system, stamped with the generation and a nonce kept with it (a database deleted and made again never takes an old file).',
        'Same machine, same hour (2026-11-28, load about 1.9), a fresh SQLite process per restart alternating with the code before these snapshot versions (e9b7ff7): first query 238.8 ms before, 132.3 ms after (medians of 7; earlier the same hour, 205 → 145 ms for the metadata left out alone, then 118 ms with the keyword snapshot read unjoined). The previous run of this table (2026-11-27): SQLite 234.9 ms, IndexedDB 234.3 ms.',
        'Earlier on 2026-11-28 (load 1–2.5): the check for non-finite values reads each value’s exponent bits in a branch-free loop instead of three native `includes` scans (NaN and each infinity), 10–17 → 5–6 ms for 2.6M values in a fresh process; a snippet finds its words with `indexOf` and one sticky letter-or-number pattern instead of compiling a Unicode-property pattern for each word; in 15 alternating fresh SQLite processes the first query went 94.9 → 90.6 ms (medians). Outside the timed query: the planner’s lexicon is stemmed when a plan first needs it, not when the core is imported, which took about 50 ms of every start (import of the core 166 → 129 ms, medians of 5 alternating fresh processes).',
        "IndexedDB’s first query after a reload moves with the machine’s load: 92.5, 113.3 and 121.6 ms in three runs of 2026-11-28 afternoon, 153.4 ms in the run before them, 144.4 ms in the evening's run, when the same code ran two to three times slower than in the morning (Hono's hello-world 15k against 41k req/s). In 4 more reloads each in a profile on disk and in memory, alternating, the same hour (load 0.7–2), it took 118–155 ms (medians 124.0 and 121.4 ms on disk, 110.5 and 123.7 in memory): whether the profile is on disk does not explain the spread between runs. Where a reload's first query spends its time (Chromium's trace of the page's main thread, one reload taking 127 ms): about 18 ms of IndexedDB requests (the snapshot rows and generations) and opening the two snapshot files before their bytes flow; about 30 ms reading the 10 MB of vectors and the 2.2 MB keyword snapshot through Chromium's blob reader, the page idle meanwhile; 18 ms loading the stored vectors (their ids' map and the finiteness check); 41 ms for the first searches (the first scan, the query terms' postings), 9 ms of it a minor garbage collection; the rest the hits' metadata and the answer. Meanwhile V8 compiles the hot functions on background threads (40–60 ms of Maglev and TurboFan work in that trace), so the first scan and the load run mostly in unoptimised code: a CPU profile counts that as “program”, 86–113 ms of one reload's samples. Reading the files from a worker through synchronous access handles (which the main thread cannot use) does not cut it on this machine: in 4 reloads each, alternating, in the same profile (2026-11-28, load under 0.5), a worker started from a blob read both files (12.6 MB) in 18–22 ms once running, but took 2–5 ms to start and 37–49 ms from the first call to the bytes on the page, against 37–46 ms through `getFile()`; what is left is fewer bytes to read and check.",
        'Where a reload’s first query goes (2026-11-29, timed inside six reloads, load 1–2): IndexedDB transactions 2–8 ms; both snapshot files in flight together until 30–56 ms; loading the vectors into the index 9–15 ms (the ids’ map 3–5, the finiteness check 4–8); the keyword snapshot 3–8 ms; then, in code still cold, the vector search 6–20 ms, the keyword search 7–13 ms and the hits’ metadata 2–11 ms. The approximate index’s stored structure (there is none at 10k documents, where the index is exact) was looked up only once the vectors had loaded, 2–4 ms; it is now read beside them. Decoding the keyword snapshot as soon as its file was in, while the vector file still flowed, gained nothing: Chromium hands a file’s bytes to the page on its main thread, and the vector file came in as much later. Reading the vector file as a stream and checking each part as it came took 43–46 ms against 35–38 for one read and one check; reading it in 2, 4 or 8 slices at once, 37–61 ms against 23–35 for one read. In the same hour as this table, two builds that had each ingested the corpus (with and without that decoding) took 63–122 ms a reload over 10 alternating reloads each, medians 78.4 and 85.9 ms: this table’s figure is the median of 5 reloads made right after the ingest and the appends.',
        'What is left (timed inside one SQLite restart, 2026-11-28): reading the 10.4 MB of vector parts, 45–65 ms, and the 2.2 MB keyword snapshot, 12–16 ms. On this machine a fresh 4 KiB page costs about 12 µs when first touched, and a value read from SQLite touches two (the copy SQLite assembles from its overflow pages, then the binding’s), so reading 13 MB took about 6,700 page faults; SQLite page sizes from 4 to 64 KiB and memory-mapped reads did not change it. Then the index load (the ids parsed, their map, the check for non-finite values) 20–25 ms, about 12 ms since the check reads bits (above); the keyword header (ids and terms) 11 ms; the first vector search 7–12 ms (a short query reads a few values of every row, each a cache miss); the hits’ metadata, 1 ms. Fewer bytes (vectors in fewer bits) or reads without copies, which the SQLite binding does not offer, are what would cut it further.',
      ],
      measuredAt: new Date().toISOString().slice(0, 10),
      machine: machineDescription(),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
