import { McpError, ErrorCode, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { redact, redactJournal, toTraceRecords } from '../core/index.ts';
import type { McpServeContext } from './serverTools.ts';

/** Largest resource served, in characters; larger journals are read through the HTTP API, which streams them. */
export const MAX_RESOURCE_CHARS = 16 * 1024 * 1024;

/** Runs listed by `resources/list`, newest first. */
const LISTED_RUNS = 50;

/** The resources of one run: its outcome, its redacted journal and its trace. */
export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  { uriTemplate: 'cugar://runs/{runId}', name: 'run', description: 'A run as its journal stands (redacted outcome)', mimeType: 'application/json' },
  {
    uriTemplate: 'cugar://runs/{runId}/journal',
    name: 'journal',
    description: "The run's journal, redacted: a derived journal, one event per line, that verifies on its own",
    mimeType: 'application/x-ndjson',
  },
  { uriTemplate: 'cugar://runs/{runId}/trace', name: 'trace', description: "The run's trace records (redacted)", mimeType: 'application/json' },
];

const RUN_URI = /^cugar:\/\/runs\/([^/]+)(?:\/(journal|trace))?$/;

/** The profile's recent runs as resources. */
export async function listResources(context: McpServeContext): Promise<Resource[]> {
  const runs = await context.runtime.store.listRuns({ profile: context.profile, limit: LISTED_RUNS });
  return runs.map((run) =>
    redact({
      uri: `cugar://runs/${run.runId}`,
      name: run.runId,
      title: run.goal.length > 120 ? `${run.goal.slice(0, 119)}…` : run.goal,
      description: `${run.status} run of "${run.profile}"`,
      mimeType: 'application/json',
    }),
  );
}

function notFound(uri: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `no resource ${uri}`);
}

function bounded(uri: string, mimeType: string, text: string): ReadResourceResult {
  if (text.length > MAX_RESOURCE_CHARS)
    throw new McpError(ErrorCode.InvalidRequest, `${uri} is larger than ${MAX_RESOURCE_CHARS} characters; read it through the HTTP API, which streams it`);
  return { contents: [{ uri, mimeType, text }] };
}

/**
 * Read a run's resource. A run of another profile reads exactly as a run that does not exist.
 * The journal is the redacted derivation `GET /v1/runs/{id}/journal` serves by default (its
 * first event names the source head and its signature, when that is still the head).
 */
export async function readResource(context: McpServeContext, uri: string): Promise<ReadResourceResult> {
  const match = RUN_URI.exec(uri);
  if (!match) throw notFound(uri);
  const runId = decodeURIComponent(match[1]!);
  const summary = await context.runtime.store.getRun(runId);
  if (!summary || summary.profile !== context.profile) throw notFound(uri);
  const view = match[2];
  if (view === undefined) return bounded(uri, 'application/json', JSON.stringify(redact(await context.runtime.orchestrator.getRun(runId)), null, 2));
  const recorded = await context.runtime.store.readJournal(runId);
  if (view === 'trace') return bounded(uri, 'application/json', JSON.stringify({ records: redact(toTraceRecords(recorded)) }));
  const last = recorded[recorded.length - 1];
  const signature = summary.signature && last && summary.head.seq === last.seq && summary.head.hash === last.hash ? summary.signature : undefined;
  const derived = redactJournal(recorded, signature);
  return bounded(uri, 'application/x-ndjson', derived.map((event) => JSON.stringify(event)).join('\n') + (derived.length ? '\n' : ''));
}
