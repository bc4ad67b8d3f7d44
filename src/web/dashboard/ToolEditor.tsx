import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, client as apiClient, unwrap } from './api.ts';

/** One finding of the patch auditor, as the API lists it. */
interface Finding {
  rule: string;
  severity: string;
  message: string;
  line: number;
  column: number;
}

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

const SAMPLE_SOURCE = `export default function handler(input) {
  const words = input.text.split(/\\s+/).filter(Boolean);
  return { words: words.length };
}
`;
const SAMPLE_SCHEMA = JSON.stringify({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, null, 2);

/** The outcome of the last proposal: audited and waiting, or refused with every finding. */
type Proposed = { ok: true; hash: string; warnings: Finding[]; score: number } | { ok: false; code: string; message: string; findings: Finding[] };

function FindingList({ findings, label }: { findings: readonly Finding[]; label: string }) {
  if (findings.length === 0) return null;
  return (
    <ul aria-label={label} className="findings">
      {findings.map((finding, index) => (
        <li key={index}>
          <strong>{finding.severity}</strong> <code>{finding.rule}</code> at line {finding.line}, column {finding.column}: {finding.message}
        </li>
      ))}
    </ul>
  );
}

/**
 * The tool editor (`#/tools/edit`, or `#/tools/edit/<name>`): write a tool's source, its input
 * schema (JSON Schema) and description, and propose it. The patch auditor's findings show
 * beside it; an audited proposal waits for approval here, and the version history lists every
 * version by its hash, with who approved it, and activates an earlier one (a rollback).
 */
export function ToolEditor({ token, profile, initialName }: { token: string; profile: string; initialName?: string | undefined }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(initialName && TOOL_NAME.test(initialName) ? initialName : 'word_count');
  const [source, setSource] = useState(SAMPLE_SOURCE);
  const [schema, setSchema] = useState(SAMPLE_SCHEMA);
  const [description, setDescription] = useState('Count the words of a text');
  const [cost, setCost] = useState('1');
  const [latency, setLatency] = useState('100');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [proposed, setProposed] = useState<Proposed | null>(null);
  const validName = TOOL_NAME.test(name);
  const param = { profile, name };

  const history = useQuery({
    queryKey: ['tool-versions', token, profile, name],
    enabled: validName,
    retry: false,
    queryFn: () => unwrap(apiClient(token).v1.profiles[':profile'].tools[':name'].versions.$get({ param })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['tool-versions', token, profile, name] });

  const propose = useMutation({
    mutationFn: async (json: { source: string; inputSchema: Record<string, unknown>; description: string; meta: { cost: number; latency: number } }) => {
      const response = await apiClient(token).v1.profiles[':profile'].tools[':name'].versions.$post({ param, json });
      if (response.status === 202) {
        const body = await response.json();
        return { ok: true, hash: body.version.hash, warnings: body.audit.warnings, score: body.audit.score } satisfies Proposed;
      }
      const body = (await response.json()) as { error?: { code: string; message: string }; findings?: Finding[] };
      return {
        ok: false,
        code: body.error?.code ?? 'error',
        message: body.error?.message ?? `HTTP ${response.status}`,
        findings: body.findings ?? [],
      } satisfies Proposed;
    },
    onSuccess: (result) => {
      setProposed(result);
      void refresh();
    },
  });
  const decide = useMutation({
    mutationFn: ({ hash, action }: { hash: string; action: 'approve' | 'activate' }) => {
      const versions = apiClient(token).v1.profiles[':profile'].tools[':name'].versions[':hash'];
      return unwrap(action === 'approve' ? versions.approve.$post({ param: { ...param, hash } }) : versions.activate.$post({ param: { ...param, hash } }));
    },
    onSuccess: () => {
      setProposed(null);
      void refresh();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProposed(null);
    let inputSchema: unknown;
    try {
      inputSchema = JSON.parse(schema);
    } catch {
      setInvalid('The input schema is not valid JSON.');
      return;
    }
    if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema)) {
      setInvalid('The input schema must be a JSON object (a JSON Schema with "type": "object").');
      return;
    }
    if (!validName) {
      setInvalid('A tool name is 1-64 lowercase letters, digits or "_", starting with a letter.');
      return;
    }
    setInvalid(null);
    propose.mutate({
      source,
      inputSchema: inputSchema as Record<string, unknown>,
      description,
      meta: { cost: Number(cost) || 0, latency: Number(latency) || 0 },
    });
  };

  /** Fill the form with a version's content, to propose the next version from it. */
  const editFrom = (version: { source: string; inputSchema: Record<string, unknown>; description: string; meta: { cost: number; latency: number } }) => {
    setSource(version.source);
    setSchema(JSON.stringify(version.inputSchema, null, 2));
    setDescription(version.description);
    setCost(String(version.meta.cost));
    setLatency(String(version.meta.latency));
    setProposed(null);
  };

  const versions = history.data?.versions ?? [];
  const unsupported = history.error instanceof ApiError && history.error.code === 'unsupported_host' ? history.error.message : null;
  return (
    <section aria-labelledby="tool-editor-title" className="stack">
      <h1 id="tool-editor-title">Tool editor — {profile}</h1>
      <p className="hint">
        A tool written here runs only in the sandbox. Each proposal is checked by the patch auditor, waits for an approval, and is kept under the SHA-256 of its
        source, schema, description and metadata. Runs keep the version they started with. <a href="#/tools">Back to the tools</a>
      </p>
      {unsupported ? (
        <p role="alert" className="bad">
          {unsupported}
        </p>
      ) : null}
      <form className="stack" onSubmit={submit} aria-label="Propose a tool version" noValidate>
        <label htmlFor="tool-name">Tool name</label>
        <input id="tool-name" value={name} onChange={(e) => setName(e.target.value)} aria-invalid={!validName} />
        <label htmlFor="tool-description">Description</label>
        <input id="tool-description" value={description} onChange={(e) => setDescription(e.target.value)} />
        <label htmlFor="tool-source">Source</label>
        <textarea id="tool-source" rows={12} spellCheck={false} value={source} onChange={(e) => setSource(e.target.value)} />
        <label htmlFor="tool-schema">Input schema (JSON Schema)</label>
        <textarea id="tool-schema" rows={8} spellCheck={false} value={schema} onChange={(e) => setSchema(e.target.value)} />
        <label htmlFor="tool-cost">Cost per call</label>
        <input id="tool-cost" type="number" min={0} value={cost} onChange={(e) => setCost(e.target.value)} />
        <label htmlFor="tool-latency">Expected latency (ms)</label>
        <input id="tool-latency" type="number" min={0} value={latency} onChange={(e) => setLatency(e.target.value)} />
        <div className="actions">
          <button type="submit" disabled={propose.isPending}>
            Propose
          </button>
        </div>
      </form>
      {invalid ? (
        <p role="alert" className="bad">
          {invalid}
        </p>
      ) : null}
      {propose.error ? (
        <p role="alert" className="bad">
          {propose.error.message}
        </p>
      ) : null}
      {proposed && !proposed.ok ? (
        <div role="alert" className="card plain">
          <h2>Refused: {proposed.code}</h2>
          <p>{proposed.findings.length ? `${proposed.findings.length} findings refuse this source.` : proposed.message}</p>
          <FindingList findings={proposed.findings} label="Audit findings" />
        </div>
      ) : null}
      {proposed?.ok ? (
        <div role="status" className="card plain">
          <h2>Audited: waiting for approval</h2>
          <p>
            Version <code>{proposed.hash.slice(0, 12)}</code> passed the audit (score {proposed.score}).
          </p>
          <FindingList findings={proposed.warnings} label="Audit notes" />
        </div>
      ) : null}
      {decide.error ? (
        <p role="alert" className="bad">
          {decide.error.message}
        </p>
      ) : null}
      <h2>Versions of {name}</h2>
      {history.isSuccess && versions.length === 0 ? <p>No versions yet.</p> : null}
      {versions.length > 0 ? (
        <table className="tool-versions">
          <caption className="hint">Newest first; a run uses the version that was active when it started.</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Status</th>
              <th scope="col">Proposed by</th>
              <th scope="col">Approved by</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {versions.map((version) => (
              <tr key={version.hash}>
                <td>
                  <code title={version.hash}>{version.hash.slice(0, 12)}</code>
                </td>
                <td>{version.status}</td>
                <td>{version.proposedBy}</td>
                <td>{version.approvedBy ?? '—'}</td>
                <td>
                  {version.status === 'proposed' ? (
                    <button type="button" disabled={decide.isPending} onClick={() => decide.mutate({ hash: version.hash, action: 'approve' })}>
                      Approve {version.hash.slice(0, 12)}
                    </button>
                  ) : null}
                  {version.status === 'retired' ? (
                    <button type="button" disabled={decide.isPending} onClick={() => decide.mutate({ hash: version.hash, action: 'activate' })}>
                      Activate {version.hash.slice(0, 12)}
                    </button>
                  ) : null}
                  {version.status === 'active' ? 'in use' : null}{' '}
                  <button type="button" className="link" onClick={() => editFrom(version)}>
                    Edit a copy of {version.hash.slice(0, 12)}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
