import { parseArgs } from 'node:util';
import {
  Controller,
  CugarError,
  ToolRegistry,
  diffJournals,
  formatDifference,
  parseConfig,
  parseJournal,
  redact,
  registerBuiltinTools,
  type JournalEvent,
} from '../core/index.ts';
import { createOutput, paint, type Output } from './output.ts';
import { dataCommand, planNotes, readJournalFile, withBackend } from './commands.ts';
import { loadLocalSettings } from './localSettings.ts';

/** Commands that work on a data directory (unless `--api` names a server): they read the configuration file. */
const LOCAL_COMMANDS: ReadonlySet<string> = new Set([
  'run',
  'plan',
  'tools',
  'ingest',
  'query',
  'runs',
  'trace',
  'replay',
  'approve',
  'reject',
  'resume',
  'cancel',
  'export',
  'verify',
  'mcp',
]);

/** Exit codes: 0 ok, 1 the run failed, 2 bad usage or input, 3 not found, 4 refused by policy, 70 internal error. */
export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3, policy: 4, paused: 5, internal: 70 } as const;

const USAGE = `cugar — offline-first, deterministic agent runtime

Usage:
  cugar serve [--port N] [--host H] [--data-dir D]
                                   serve the API and dashboard (default http://127.0.0.1:8787, data in .cugar/),
                                   configured by $CUGAR_CONFIG, else configs/orchestrator.yaml when present
  cugar run <goal>                 plan and run a goal; on a TTY asks before approval-required steps
  cugar plan <goal>                show the plan and every candidate tool, without running
  cugar tools                      list the tools of a profile with their JSON Schemas
  cugar ingest <file>...           ingest .txt/.md/.html/.json files for retrieval
  cugar query <question>           search ingested documents
  cugar runs                       list recent runs
  cugar approve|reject <approvalId> [--reason R]
                                   decide a paused run's approval; the run continues
  cugar resume|cancel <runId>      continue a run from its journal, or stop it
  cugar export <runId> [--raw]     the run's journal as NDJSON: redacted (a derived journal that
                                   verifies), or as recorded with --raw
  cugar trace <runId> [--otlp]     show a run as a tree, or as OTLP JSON
  cugar verify [runId]             check the hash chain of one run, or of every run
  cugar verify --public-key K [runId | file]
                                   check signed heads and the signed log of heads with the host's
                                   public key only (K: hex, a file, or the URL of GET /v1/keys), on
                                   --api's server, the local data or an exported journal file
                                   (--heads F: a saved GET /v1/audit/heads, for a raw export;
                                   --since N:H: a log head printed before, which the log must extend)
  cugar replay <runId|file>        re-run a journal against recorded results and report divergence
  cugar diff <a.ndjson> <b.ndjson> the first event at which two journals differ, and each differing
                                   field (exit 1 when they differ: a golden-journal check for CI)
  cugar demo                       run a few goals in memory and show their traces
  cugar mcp [--data-dir D]         serve a profile of the local data as an MCP server on stdio
                                   (its tools, run_goal, runs as resources)
  cugar config check [--file F]    validate the configuration file ($CUGAR_CONFIG, else
                                   configs/orchestrator.yaml when present) and print the effective
                                   configuration of \`cugar serve\`, secrets masked (exit 2 on errors)

Options:
  --profile, -p     profile to use (default: $CUGAR_PROFILE or demo)
  --data-dir D      local data directory (default: $CUGAR_DATA_DIR or .cugar)
  --api URL         use a server instead of local data (or $CUGAR_API); with --token T (or $CUGAR_TOKEN)
  --model M[,M2]    the model of local agent runs, with fallbacks (or $CUGAR_MODEL; needs $CUGAR_MODEL_URL)
  --approve-all     approve every approval request of \`run\` (required when stdin is not a TTY)
  --json            print exactly one JSON document on stdout; messages go to stderr
  --help, -h        show this help

Exit codes: 0 ok, 1 the run failed, did not verify or the server was unreachable, 2 bad usage or input, 3 not found,
4 refused by policy, 5 paused for approval, 70 internal error. NO_COLOR is respected.`;

function exitCodeFor(error: unknown): number {
  if (!(error instanceof CugarError)) return EXIT.internal;
  if (error.code === 'not_found' || error.code.startsWith('unknown_')) return EXIT.notFound;
  if (error.failureMode === 'POLICY') return EXIT.policy;
  if (error.failureMode === 'USER') return EXIT.usage;
  return EXIT.failed;
}

/** One line per journal event that a person follows: the plan, each call and its result, approvals, the end. */
function printJournal(output: Output, events: readonly JournalEvent[]): void {
  const tools = new Map<string, string>();
  const line = (text: string) => output.out(`  ${text}`);
  const ms = (value: number | undefined) => (value === undefined ? '' : paint(output, 'dim', ` ${value} ms`));
  for (const event of events) {
    switch (event.type) {
      case 'plan_created': {
        const { steps, stopReason } = event.data.plan;
        for (const step of steps) tools.set(step.name, step.tool);
        line(
          `${paint(output, 'cyan', 'plan')} ${steps.map((s) => `${s.tool}(${JSON.stringify(s.input)})`).join(' → ') || '(empty)'} ${paint(output, 'dim', stopReason)}`,
        );
        for (const note of planNotes(event.data.plan)) line(paint(output, 'dim', note));
        break;
      }
      case 'tool_call_start':
        line(`${paint(output, 'dim', '→')} ${event.data.tool} #${event.data.index}${event.data.attempt > 1 ? ` (attempt ${event.data.attempt})` : ''}`);
        break;
      case 'tool_call_complete':
        line(
          `${paint(output, 'green', '✓')} ${tools.get(event.data.stepId) ?? event.data.stepId} = ${JSON.stringify(event.data.output)}${ms(event.data.durationMs)}`,
        );
        break;
      case 'tool_call_error':
        line(
          `${paint(output, 'red', '✗')} ${tools.get(event.data.stepId) ?? event.data.stepId} ${event.data.error.code}: ${event.data.error.message}${ms(event.data.durationMs)}`,
        );
        break;
      case 'approval_requested':
        line(`${paint(output, 'yellow', '?')} ${event.data.tool} waits for approval ${event.data.approvalId}`);
        break;
      case 'run_completed':
        line(
          `${event.data.success ? paint(output, 'green', 'completed') : paint(output, 'red', event.data.stopReason)}${ms(event.at - (events[0]?.at ?? event.at))}`,
        );
        break;
      default:
        break;
    }
  }
}

/** Run the CLI with `argv` (without `node` and the script); resolves to the exit code. */
export async function main(argv: readonly string[], output: Output = createOutput()): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        profile: { type: 'string', short: 'p' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        api: { type: 'string' },
        token: { type: 'string' },
        'approve-all': { type: 'boolean' },
        otlp: { type: 'boolean' },
        k: { type: 'string' },
        'public-key': { type: 'string' },
        heads: { type: 'string' },
        since: { type: 'string' },
        model: { type: 'string' },
        reason: { type: 'string' },
        raw: { type: 'boolean' },
        file: { type: 'string' },
      },
    });
  } catch (error) {
    output.err(`${(error as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  const [command, ...rest] = parsed.positionals;
  // `--model` picks the model(s) of local agent runs (CUGAR_MODEL_URL and CUGAR_MODEL_KEY still say where and how).
  if (parsed.values.model !== undefined) {
    if (parsed.values.api ?? process.env['CUGAR_API']) {
      output.err('--model applies to local runs; a server runs the models it was configured with');
      return EXIT.usage;
    }
    process.env['CUGAR_MODEL'] = parsed.values.model;
  }
  if (parsed.values.help || !command) {
    (command || parsed.values.help ? output.out : output.err)(USAGE);
    return parsed.values.help ? EXIT.ok : EXIT.usage;
  }

  const { config: fromEnv, warnings } = parseConfig({ ...process.env });
  // `cugar config check` reports the variables itself, against the file's values.
  if (command !== 'config') for (const warning of warnings) output.err(`warning: ${warning}`);
  // Commands on the local data directory read the configuration file as `cugar serve` does.
  const local = LOCAL_COMMANDS.has(command) && !(parsed.values.api ?? process.env['CUGAR_API']);
  let settings: Awaited<ReturnType<typeof loadLocalSettings>> | undefined;
  try {
    settings = local ? await loadLocalSettings(output, warnings) : undefined;
  } catch (error) {
    output.err(`${paint(output, 'red', 'error')}: ${error instanceof Error ? error.message : String(error)}`);
    return exitCodeFor(error);
  }
  const config = settings?.config ?? fromEnv;
  const profile = parsed.values.profile ?? config.defaultProfile;
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  const controller = new Controller({ registry, config });
  const json = parsed.values.json === true;

  try {
    switch (command) {
      case 'serve': {
        const { startServer, parseRateLimit } = await import('../edge/nodeServer.ts');
        const { orchestratorOptionsOf } = await import('./hostConfig.ts');
        // The configuration file with the environment over it ($CUGAR_CONFIG, else configs/orchestrator.yaml when present).
        const settings = await loadLocalSettings(output, warnings);
        if (settings.file) output.err(`configuration: ${settings.file}`);
        const rateLimit = parseRateLimit(process.env['CUGAR_RATE_LIMIT']);
        const { approval, orchestrator: fromFile } = settings;
        const port = parsed.values.port === undefined ? 8787 : Number(parsed.values.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CugarError(`--port must be 0-65535`, { code: 'invalid_port', failureMode: 'USER' });
        const server = await startServer({
          port,
          hostname: parsed.values.host ?? process.env['CUGAR_HOST'] ?? '127.0.0.1',
          dataDir: parsed.values['data-dir'] ?? process.env['CUGAR_DATA_DIR'] ?? '.cugar',
          tokens: settings.tokens,
          ...(rateLimit ? { rateLimit } : {}),
          ...(approval ? { approval } : {}),
          config: settings.config,
          ...(settings.profileBudgets ? { profileBudgets: settings.profileBudgets } : {}),
          ...(settings.otlp ? { otlp: settings.otlp } : {}),
          mcp: settings.mcp,
          modelEnv: settings.modelEnv,
          secrets: settings.secrets,
          orchestrator: orchestratorOptionsOf(fromFile),
          ...(fromFile.dbPath ? { databasePath: fromFile.dbPath } : {}),
          ...(fromFile.retentionDays ? { retentionDays: fromFile.retentionDays } : {}),
          log: (line) => output.err(line),
        });
        await new Promise<void>((resolve) => {
          const stop = (signal: string) => {
            output.err(`${signal}: finishing in-flight writes and closing the database`);
            void server.close().then(resolve);
          };
          process.once('SIGTERM', () => stop('SIGTERM'));
          process.once('SIGINT', () => stop('SIGINT'));
        });
        return EXIT.ok;
      }
      case 'demo': {
        const goals = [
          'add 10 and 5',
          'add 2 and 3, then multiply the result by 4',
          'calculate (2 + 3) * 4 ^ 2',
          'count the words in "the cat sat on the mat"',
          'book a flight to Lisbon',
        ];
        const results = [];
        for (const goal of goals) {
          const result = await controller.run(goal, profile);
          results.push(result);
          if (!json) {
            output.out(`${paint(output, 'bold', '›')} ${goal}`);
            printJournal(output, result.events);
          }
        }
        if (json)
          output.out(
            JSON.stringify(results.map((r) => ({ goal: r.plan.goal, success: r.success, outputs: r.outputs, stopReason: r.stopReason, traceId: r.traceId }))),
          );
        return EXIT.ok;
      }
      case 'verify': {
        // With the host's public key: signatures and the log of heads, checked here (src/cli/verify.ts).
        const publicKey = parsed.values['public-key'];
        if (publicKey !== undefined)
          return await (await import('./verify.ts')).verifyWithKey(rest, { ...parsed.values, 'public-key': publicKey, json }, output);
        return await withBackend(
          parsed.values,
          config,
          (backend) => dataCommand(command, rest, backend, { ...parsed.values, profile, json }, output),
          settings,
        );
      }
      case 'diff': {
        const [left, right] = rest;
        if (!left || !right) throw new CugarError('diff needs two journal files', { code: 'usage', failureMode: 'USER' });
        const difference = diffJournals(parseJournal(readJournalFile(left)), parseJournal(readJournalFile(right)));
        if (json) output.out(JSON.stringify(redact({ same: !difference, ...(difference ? { difference } : {}) })));
        else
          output.out(
            difference ? formatDifference(difference, { a: left, b: right }) : `${paint(output, 'green', 'same')}: the journals agree event for event`,
          );
        return difference ? EXIT.failed : EXIT.ok;
      }
      case 'config':
        return await (await import('./configCommand.ts')).configCommand(rest, { ...parsed.values, json }, output);
      case 'mcp':
        // stdout is the protocol's: everything else goes to stderr.
        await (await import('./mcp.ts')).mcpCommand(parsed.values, profile, config, output, settings);
        return EXIT.ok;
      case 'run':
      case 'plan':
      case 'tools':
      case 'ingest':
      case 'query':
      case 'runs':
      case 'trace':
      case 'replay':
      case 'approve':
      case 'reject':
      case 'resume':
      case 'cancel':
      case 'export':
        return await withBackend(
          parsed.values,
          config,
          (backend) => dataCommand(command, rest, backend, { ...parsed.values, profile, json }, output),
          settings,
        );
      default:
        output.err(`unknown command "${command}"\n\n${USAGE}`);
        return EXIT.usage;
    }
  } catch (error) {
    const code = exitCodeFor(error);
    if (json)
      output.out(
        JSON.stringify({
          error: error instanceof CugarError ? { code: error.code, message: error.message } : { code: 'internal_error', message: String(error) },
        }),
      );
    else output.err(`${paint(output, 'red', 'error')}: ${error instanceof Error ? error.message : String(error)}`);
    return code;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
