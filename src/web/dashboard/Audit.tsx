import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type DragEvent } from 'react';
import { client as apiClient, unwrap } from './api.ts';
import { ExportSignature, Signatures } from './Signatures.tsx';
import { SpanTimeline, type Span } from './TraceView.tsx';

interface Verification {
  runId: string | null;
  ok: boolean;
  seq?: number;
  reason?: string;
  count: number;
}

interface Replay {
  ok: boolean;
  events: number;
  divergence?: { seq: number; expected?: unknown; actual?: unknown };
}

/** Spans of an OTLP JSON file, indented under their parents; the reader loads on first use. */
async function otlpSpans(text: string): Promise<Span[]> {
  const { readOtlp } = await import('../../core/journal/otlp.ts');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('the file is not JSON');
  }
  return readOtlp(json).map((span) => {
    const tool = span.attributes['gen_ai.tool.name'];
    return {
      label: `${'· '.repeat(span.depth)}${span.name}`,
      start: span.startMs,
      end: span.endMs,
      kind: span.statusCode === 2 ? 'error' : typeof tool === 'string' || span.name.startsWith('execute_tool') ? 'tool' : 'stage',
      seqs: [],
      ...(typeof tool === 'string' ? { tool } : {}),
      ...(span.statusMessage ? { error: span.statusMessage } : {}),
      extra: {
        traceId: span.traceId,
        spanId: span.spanId,
        ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
        ...(span.service ? { service: span.service } : {}),
        attributes: span.attributes,
      },
    } satisfies Span;
  });
}

function OtlpViewer() {
  const [file, setFile] = useState<{ name: string; spans: Span[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const open = async (picked: File | undefined) => {
    if (!picked) return;
    setError(null);
    try {
      setFile({ name: picked.name, spans: await otlpSpans(await picked.text()) });
    } catch (e) {
      setFile(null);
      setError(`${picked.name}: ${(e as Error).message}`);
    }
  };
  return (
    <>
      <h2>Open an OTLP trace</h2>
      <p>OTLP/HTTP JSON from CUGAr (a run's “export OTLP”) or from any OpenTelemetry exporter; it is read in this page and sent nowhere.</p>
      <div className="dropzone" onDragOver={(e) => e.preventDefault()} onDrop={(e) => (e.preventDefault(), void open(e.dataTransfer.files[0]))}>
        <label htmlFor="otlp-file">OTLP JSON file, or drop it here</label>
        <input id="otlp-file" type="file" accept=".json,application/json" onChange={(e) => void open(e.target.files?.[0])} />
      </div>
      {error ? (
        <p role="alert" className="bad">
          {error}
        </p>
      ) : null}
      {file ? (
        <>
          <p role="status">
            {file.name}: {file.spans.length} span(s)
          </p>
          <SpanTimeline spans={file.spans} />
        </>
      ) : null}
    </>
  );
}

export function Audit({ token }: { token: string }) {
  const client = useQueryClient();
  const audit = useQuery({ queryKey: ['audit-all'], queryFn: () => unwrap(apiClient(token).v1.audit.$get()) });
  const [journal, setJournal] = useState<{ name: string; text: string } | null>(null);
  const verify = useMutation({
    mutationFn: (text: string): Promise<Verification> => unwrap(apiClient(token).v1.audit.journal.$post({ json: { journal: text } })),
  });
  const replay = useMutation({ mutationFn: (text: string): Promise<Replay> => unwrap(apiClient(token).v1.replay.$post({ json: { journal: text } })) });
  const store = useMutation({
    mutationFn: (text: string) => unwrap(apiClient(token).v1.journals.$post({ json: { journal: text } })),
    onSuccess: () => void client.invalidateQueries(),
  });
  const load = async (file: File | undefined) => {
    if (!file) return;
    const text = await file.text();
    setJournal({ name: file.name, text });
    replay.reset();
    store.reset();
    verify.mutate(text);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    void load(event.dataTransfer.files[0]);
  };
  const lines = journal?.text.trim().split('\n') ?? [];
  const broken = verify.data && !verify.data.ok ? verify.data.seq : undefined;
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <p>Every journal's hash chain is checked against the head recorded when it was last written, and every run against the store's signed log of heads.</p>
      {audit.data ? (
        <>
          <p className={audit.data.ok ? 'ok' : 'bad'} role="status">
            {audit.data.ok
              ? `All ${audit.data.runs.length} journals verify.`
              : `${audit.data.runs.filter((r) => !r.ok).length} journal(s) are broken or missing.`}
          </p>
          {audit.data.log.problem ? <p className="bad">The store's log of heads: {audit.data.log.problem}</p> : null}
          {audit.data.log.note ? <p>{audit.data.log.note}.</p> : null}
        </>
      ) : (
        <p>Verifying…</p>
      )}
      <ul>
        {audit.data?.runs.map((run) => (
          <li key={run.runId}>
            <a href={`#/runs/${encodeURIComponent(run.runId)}`}>{run.runId}</a>:{' '}
            {run.ok ? (
              <span className="ok">verified</span>
            ) : (
              <span className="bad">
                broken at seq {run.seq} ({run.reason})
              </span>
            )}
          </li>
        ))}
      </ul>

      <Signatures token={token} />

      <h2>Check an exported journal</h2>
      <div className="dropzone" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
        <label htmlFor="journal-file">Journal file (.ndjson or .json), or drop it here</label>
        <input id="journal-file" type="file" accept=".ndjson,.json,application/json" onChange={(e) => void load(e.target.files?.[0])} />
      </div>
      {verify.error ? (
        <p role="alert" className="bad">
          {(verify.error as Error).message}
        </p>
      ) : null}
      {verify.data ? (
        <>
          <p role="status" className={verify.data.ok ? 'ok' : 'bad'}>
            {journal?.name}: {verify.data.ok ? `the chain of ${verify.data.count} events verifies` : `broken at seq ${verify.data.seq}: ${verify.data.reason}`}
          </p>
          {journal && verify.data.ok ? <ExportSignature token={token} name={journal.name} text={journal.text} /> : null}
          <ol className="journal" start={0} tabIndex={0} aria-label={`Events of ${journal?.name ?? 'the journal'}`}>
            {lines.map((line, i) => (
              <li key={i} className={i === broken ? 'broken' : undefined} aria-current={i === broken ? 'true' : undefined}>
                <code>{line.slice(0, 160)}</code>
              </li>
            ))}
          </ol>
          <div className="actions">
            <button type="button" onClick={() => replay.mutate(journal!.text)} disabled={!verify.data.ok || replay.isPending}>
              Replay this journal
            </button>
            <button type="button" onClick={() => store.mutate(journal!.text)} disabled={!verify.data.ok || store.isPending || store.isSuccess}>
              Add it to this store's runs
            </button>
          </div>
          {store.error ? (
            <p role="alert" className="bad">
              {(store.error as Error).message}
            </p>
          ) : null}
          {store.data ? (
            <p role="status" className="ok">
              Imported: <a href={`#/runs/${encodeURIComponent(store.data.runId)}`}>{store.data.runId}</a> ({store.data.events} events).
            </p>
          ) : null}
        </>
      ) : null}
      {replay.error ? (
        <p role="alert" className="bad">
          {(replay.error as Error).message}
        </p>
      ) : null}
      {replay.data ? (
        replay.data.ok ? (
          <p role="status" className="ok">
            Replay identical: {replay.data.events} events reproduced hash for hash.
          </p>
        ) : (
          <div role="status">
            <p className="bad">Replay diverged at seq {replay.data.divergence?.seq}.</p>
            <div className="side-by-side">
              <div>
                <h3>Recorded</h3>
                <pre>{JSON.stringify(replay.data.divergence?.expected, null, 2)}</pre>
              </div>
              <div>
                <h3>Replayed</h3>
                <pre>{JSON.stringify(replay.data.divergence?.actual, null, 2)}</pre>
              </div>
            </div>
          </div>
        )
      ) : null}
      <OtlpViewer />
    </section>
  );
}
