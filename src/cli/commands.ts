import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  CugarError,
  derivedFromOf,
  exportJournal,
  parseJournal,
  redact,
  redactJournal,
  replay,
  toOtlp,
  toTraceRecords,
  verifyJournal,
  type Config,
  type JournalEvent,
} from '../core/index.ts';
import type { RunOutcome } from '../api/client.ts';
import { localBackend, remoteBackend, type Backend } from './backend.ts';
import type { HostSettings } from './hostConfig.ts';
import { paint, type Output } from './output.ts';

export interface CommandOptions {
  profile: string;
  json: boolean;
  'data-dir'?: string;
  api?: string;
  token?: string;
  'approve-all'?: boolean;
  otlp?: boolean;
  k?: string;
  reason?: string;
  raw?: boolean;
}

const EXIT = { ok: 0, failed: 1, usage: 2, paused: 5 } as const;

/** Open the local data directory or a remote server, run `fn`, and close. */
export async function withBackend(
  values: Partial<CommandOptions>,
  config: Config,
  fn: (backend: Backend) => Promise<number>,
  settings?: HostSettings,
): Promise<number> {
  const api = values.api ?? process.env['CUGAR_API'];
  const backend = api
    ? remoteBackend(api, values.token ?? process.env['CUGAR_TOKEN'] ?? '')
    : await localBackend(values['data-dir'] ?? process.env['CUGAR_DATA_DIR'] ?? '.cugar', config, settings ? { settings } : {});
  try {
    return await fn(backend);
  } finally {
    await backend.close();
  }
}

/** A journal file's text; a file that cannot be read is `unknown_file` (exit 3). */
export function readJournalFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause) {
    throw new CugarError(`cannot read ${path}`, { code: 'unknown_file', failureMode: 'USER', cause });
  }
}

function usage(message: string): never {
  throw new CugarError(message, { code: 'usage', failureMode: 'USER' });
}

function printTree(output: Output, journal: readonly JournalEvent[]): void {
  const records = toTraceRecords(journal);
  const first = records[0];
  if (!first) return;
  output.out(`${paint(output, 'bold', first.runId)} ${paint(output, 'dim', first.traceId)}`);
  for (const record of records) {
    const duration = record.durationMs === undefined ? '' : paint(output, 'dim', ` ${record.durationMs} ms`);
    let label: string = record.type;
    if (record.type === 'stage') label = `stage ${record.data.stage}`;
    if (record.type === 'tool_call_complete') label = `${paint(output, 'green', '✓')} ${record.stepId} = ${JSON.stringify(record.data.output)}`;
    if (record.type === 'tool_call_error') label = `${paint(output, 'red', '✗')} ${record.stepId} ${record.data.error.code}`;
    if (record.type === 'tool_call_start') label = `→ ${record.stepId} ${record.data.tool}(${JSON.stringify(record.data.input)})`;
    if (record.type === 'approval_requested') label = `${paint(output, 'yellow', '⏸')} approval ${record.data.approvalId} for ${record.data.tool}`;
    const indent = record.type === 'stage' || record.type === 'run_completed' ? '├─ ' : '│   ';
    output.out(`${indent}${label}${duration}`);
  }
}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim().toLowerCase();
  } finally {
    rl.close();
  }
}

/** The commands that read or write run data, locally or remotely. */
export async function dataCommand(command: string, args: string[], backend: Backend, options: CommandOptions, output: Output): Promise<number> {
  // JSON output is redacted as data (values under secret-named keys too); every printed line is redacted again as text by `Output`.
  const emit = (value: unknown, human: () => void) => (options.json ? output.out(JSON.stringify(redact(value))) : human());
  switch (command) {
    case 'tools': {
      const tools = await backend.tools(options.profile);
      emit(tools, () =>
        tools.forEach((t) =>
          output.out(
            `${paint(output, 'bold', t.name.padEnd(14))} ${t.description} ${paint(output, 'dim', `(cost ${t.cost}, ${t.latency} ms${t.requiresApproval ? ', needs approval' : ''})`)}`,
          ),
        ),
      );
      return EXIT.ok;
    }
    case 'plan': {
      const goal = args.join(' ') || usage('plan needs a goal');
      const plan = redact(await backend.plan(goal, options.profile));
      emit(plan, () => {
        output.out(
          `${paint(output, 'cyan', 'plan')} ${plan.steps.map((s) => `${s.tool}(${JSON.stringify(s.input)})`).join(' → ') || '(empty)'} — ${plan.stopReason}`,
        );
        for (const c of plan.candidates)
          output.out(
            `  ${c.selected ? paint(output, 'green', '●') : paint(output, 'dim', '○')} [${c.clause}] ${c.tool.padEnd(14)} score ${c.score.toFixed(3)} sim ${c.similarity.toFixed(3)}  ${paint(output, 'dim', c.reason)}`,
          );
        for (const line of planNotes(plan)) output.out(`  ${line}`);
      });
      return EXIT.ok;
    }
    case 'run': {
      const goal = args.join(' ') || usage('run needs a goal');
      let outcome: RunOutcome = redact(await backend.run(goal, options.profile));
      while (outcome.status === 'paused' && outcome.pendingApproval) {
        const approval = outcome.pendingApproval;
        let decision: 'approve' | 'reject';
        if (options['approve-all']) decision = 'approve';
        else if (process.stdin.isTTY && !options.json) {
          const answer = await ask(`${approval.tool}(${JSON.stringify(approval.args)}) needs approval (${approval.reason}). Approve? [y/N] `);
          decision = answer === 'y' || answer === 'yes' ? 'approve' : 'reject';
        } else break;
        outcome = redact(
          await backend.decide(approval.approvalId, decision, decision === 'approve' ? 'approved in the cugar CLI' : 'rejected in the cugar CLI'),
        );
      }
      emit(outcome, () => {
        output.out(
          `${outcome.status === 'completed' ? paint(output, 'green', 'completed') : paint(output, outcome.status === 'paused' ? 'yellow' : 'red', outcome.status)} ${outcome.runId}`,
        );
        for (const [step, value] of Object.entries(outcome.outputs)) output.out(`  ${step} = ${JSON.stringify(value)}`);
        if (outcome.error) output.err(`${outcome.error.code}: ${outcome.error.message}`);
      });
      // On stderr in both modes: --json keeps stdout to one document.
      if (outcome.status === 'paused')
        output.err(
          `paused for approval ${outcome.pendingApproval?.approvalId}: continue it with \`cugar approve ${outcome.pendingApproval?.approvalId}\` (or \`cugar reject …\`)`,
        );
      return outcome.status === 'completed' ? EXIT.ok : outcome.status === 'paused' ? EXIT.paused : EXIT.failed;
    }
    case 'ingest': {
      if (args.length === 0) usage('ingest needs files');
      const documents = args.map((file) => ({ path: basename(file), text: readFileSync(file, 'utf8') }));
      const tty = Boolean(process.stderr.isTTY) && !options.json;
      const report = await backend.ingest(options.profile, documents, (p) => {
        if (tty) {
          const width = 30;
          const filled = Math.round((p.done / p.total) * width);
          process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} ${p.path.slice(0, 40).padEnd(40)}`);
          if (p.done === p.total) process.stderr.write('\n');
        } else process.stderr.write(`${JSON.stringify({ event: 'progress', ...p })}\n`);
      });
      emit(report, () => output.out(`ingested ${report.documents} document(s), ${report.chunks} chunk(s)`));
      return EXIT.ok;
    }
    case 'query': {
      const query = args.join(' ') || usage('query needs a question');
      const hits = redact(await backend.query(options.profile, query, Number(options.k ?? 5)));
      emit(hits, () => hits.forEach((h) => output.out(`${h.score.toFixed(4)} ${paint(output, 'bold', `${h.path}#${h.chunk}`)} ${h.snippet}`)));
      return EXIT.ok;
    }
    case 'approve':
    case 'reject': {
      const approvalId = args[0] ?? usage(`${command} needs an approval id`);
      const outcome = redact(
        await backend.decide(approvalId, command, options.reason ?? `${command === 'approve' ? 'approved' : 'rejected'} in the cugar CLI`),
      );
      emit(outcome, () => output.out(`${paint(output, outcome.status === 'completed' ? 'green' : 'yellow', outcome.status)} ${outcome.runId}`));
      return outcome.status === 'completed' ? EXIT.ok : outcome.status === 'paused' ? EXIT.paused : EXIT.failed;
    }
    case 'resume':
    case 'cancel': {
      const runId = args[0] ?? usage(`${command} needs a run id`);
      const outcome = redact(command === 'resume' ? await backend.resume(runId) : await backend.cancel(runId, options.reason ?? 'cancelled in the cugar CLI'));
      emit(outcome, () => output.out(`${paint(output, outcome.status === 'completed' ? 'green' : 'yellow', outcome.status)} ${outcome.runId}`));
      return outcome.status === 'completed' || (command === 'cancel' && outcome.status === 'cancelled')
        ? EXIT.ok
        : outcome.status === 'paused'
          ? EXIT.paused
          : EXIT.failed;
    }
    case 'export': {
      // Redacted by default, as the API exports: a derived journal that verifies and names its source head.
      const runId = args[0] ?? usage('export needs a run id');
      const journal = await backend.journal(runId, { raw: options.raw === true });
      const text = exportJournal(options.raw === true || derivedFromOf(journal) ? journal : redactJournal(journal));
      if (output.verbatim) output.verbatim(text);
      else output.out(text.trimEnd());
      return EXIT.ok;
    }
    case 'runs': {
      const runs = redact(await backend.runs());
      emit(runs, () => runs.forEach((r) => output.out(`${r.runId} ${r.status.padEnd(9)} ${r.profile} ${r.goal.slice(0, 60)}`)));
      return EXIT.ok;
    }
    case 'trace': {
      // Tree, JSON and OTLP alike are built from the redacted journal.
      const journal = redact(await backend.journal(args[0] ?? usage('trace needs a run id')));
      if (options.otlp) output.out(JSON.stringify(toOtlp(journal)));
      else emit(toTraceRecords(journal), () => printTree(output, journal));
      return EXIT.ok;
    }
    case 'verify': {
      const ids = args.length ? args : (await backend.runs()).map((r) => r.runId);
      const results: Array<{ runId: string; ok: boolean; seq?: number; reason?: string }> = [];
      for (const runId of ids) {
        const result = verifyJournal(await backend.journal(runId));
        results.push({ runId, ...result });
      }
      const ok = results.every((r) => r.ok);
      emit({ ok, runs: results }, () =>
        results.forEach((r) => output.out(`${r.ok ? paint(output, 'green', 'ok') : paint(output, 'red', `broken at seq ${r.seq}: ${r.reason}`)} ${r.runId}`)),
      );
      return ok ? EXIT.ok : EXIT.failed;
    }
    case 'replay': {
      const source = args[0] ?? usage('replay needs a run id or a journal file');
      // Replay re-runs the recorded inputs, so it needs the journal as recorded (a server asks for the `journal:raw` scope).
      const journal = /\.(nd)?json$/.test(source) ? parseJournal(readJournalFile(source)) : await backend.journal(source, { raw: true });
      // Replay needs the tools' schemas and policies: the local runtime's registry has the same built-ins a server has.
      const { registry, policy, toolVersions } =
        'runtime' in backend ? (backend as Awaited<ReturnType<typeof localBackend>>).runtime : (await localBackend(options['data-dir'] ?? '.cugar')).runtime;
      let result: Awaited<ReturnType<typeof replay>>;
      try {
        result = await replay(journal, registry, { ...(policy ? { policy } : {}), ...(toolVersions ? { toolVersions } : {}) });
      } catch (error) {
        // A journal whose chain does not verify is a verification failure (exit 1), not bad usage.
        if (!(error instanceof CugarError) || error.code !== 'journal_invalid') throw error;
        emit({ ok: false, error: { code: error.code, message: error.message } }, () =>
          output.err(`${paint(output, 'red', 'does not verify')}: ${error.message}`),
        );
        return EXIT.failed;
      }
      emit(result, () =>
        output.out(
          result.ok
            ? `${paint(output, 'green', 'identical')}: ${result.events} events replayed hash for hash`
            : `${paint(output, 'red', 'diverged')} at seq ${result.divergence.seq}: expected ${result.divergence.expected?.type}, got ${result.divergence.actual?.type ?? 'nothing'}`,
        ),
      );
      return result.ok ? EXIT.ok : EXIT.failed;
    }
    default:
      return usage(`unknown command ${command}`);
  }
}

/** Why a plan stopped short, as lines: each clause no tool serves, or the arguments an `input_required` plan lacks with the call to run once they are known. */
export function planNotes(plan: {
  refusals?: Array<{ text: string; message: string; suggestions: string[] }>;
  inputRequired?: { tool: string; input: Record<string, unknown>; missing: Array<{ name: string; description?: string }> };
}): string[] {
  const notes = (plan.refusals ?? []).map(
    (r) => `not planned: "${r.text}": ${r.message}${r.suggestions.length ? ` (closest: ${r.suggestions.join(', ')})` : ''}`,
  );
  const asked = plan.inputRequired;
  if (asked) {
    notes.push(`${asked.tool} needs ${asked.missing.map((m) => (m.description ? `${m.name} (${m.description})` : m.name)).join(', ')}`);
    const given = Object.entries(asked.input).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
    notes.push(`run it with them: cugar run '${asked.tool}(${[...given, ...asked.missing.map((m) => `${m.name}=…`)].join(', ')})'`);
  }
  return notes;
}
