import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replay, type JournalEvent } from '../../src/core/index.ts';
import { startServer } from '../../src/edge/nodeServer.ts';
import { startModelServer } from '../support/modelServer.ts';

// An agent proposes a tool during its run (seed 004's self-modification): a source the patch
// auditor refuses goes back to the model with every finding, and it tries again; one that passes
// waits for a person's approval, which the run cannot give and does not wait for. Once approved,
// a later run calls it in the sandbox. The proposing run replays without proposing again.

const dir = mkdtempSync(join(tmpdir(), 'cugar-propose-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schema = { type: 'object', properties: { text: { type: 'string', maxLength: 1000 } }, required: ['text'], additionalProperties: false };
const proposal = (source: string) => ({
  name: 'word_tally',
  description: 'Count the words of a text',
  inputSchema: schema,
  source,
  meta: { idempotent: true },
});
const BAD = 'export default function tally(input) { return eval(input.text); }';
const GOOD = 'export default function tally(input) { return { words: input.text.split(" ").filter(Boolean).length }; }';

describe('an agent proposing a tool during its run', () => {
  it('sees the audit’s findings, proposes again, waits for no one; once approved, a later run calls it', { timeout: 60_000 }, async () => {
    const models = await startModelServer([
      { calls: [{ name: 'propose_tool', args: proposal(BAD) }] },
      { calls: [{ name: 'propose_tool', args: proposal(GOOD) }] },
      { text: 'I proposed word_tally; a person has to approve it.' },
      { text: 'Proposed word_tally after one refused source.' },
      // The later run.
      { calls: [{ name: 'word_tally', args: { text: 'one two three' } }] },
      { text: 'Three words.' },
      { text: 'Counted words with word_tally.' },
    ]);
    const server = await startServer({
      port: 0,
      dataDir: dir,
      corpusDir: join(dir, 'no-corpus'),
      modelEnv: { CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small' },
      log: () => undefined,
    });
    const call = async (method: string, path: string, body?: unknown) =>
      (await (
        await fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${server.localToken}`, 'content-type': 'application/json' },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        })
      ).json()) as Record<string, unknown>;
    try {
      const proposing = await call('POST', '/v1/runs?wait=20', { goal: 'Make yourself a tool that counts words.', profile: 'demo' });
      expect(proposing).toMatchObject({ status: 'completed', outputs: { answer: 'I proposed word_tally; a person has to approve it.' } });
      expect(models.requests[0]!.body.tools!.map((t) => t.function.name)).toContain('propose_tool');
      const runId = proposing['runId'] as string;
      const journal = (await call('GET', `/v1/runs/${runId}/journal?raw=true`))['events'] as JournalEvent[];
      const refused = journal.find((e) => e.type === 'tool_call_error')!;
      expect(refused.data).toMatchObject({ error: { code: 'audit_failed', message: expect.stringContaining('eval') } });
      // The model saw the findings before it tried again.
      expect(JSON.stringify(models.requests[1]!.body.messages)).toContain('audit_failed');
      const done = journal.find((e) => e.type === 'tool_call_complete')!;
      const hash = (done.data as { output: { hash: string } }).output.hash;
      expect(done.data).toMatchObject({ output: { name: 'word_tally', status: 'proposed' } });

      // Proposed by the run, not approved, not active: no run can call it yet.
      const versions = (await call('GET', '/v1/profiles/demo/tools/word_tally/versions'))['versions'] as Array<Record<string, unknown>>;
      expect(versions).toMatchObject([{ hash, status: 'proposed', proposedBy: `run:${runId}` }]);
      expect(server.runtime.toolVersions!.active('demo')).toEqual({});
      expect(await call('POST', `/v1/profiles/demo/tools/word_tally/versions/${hash}/approve`)).toMatchObject({ status: 'active' });

      const later = await call('POST', '/v1/runs?wait=20', { goal: 'How many words are in "one two three"?', profile: 'demo' });
      expect(later).toMatchObject({ status: 'completed', outputs: { answer: 'Three words.', 't1.call-0': { words: 3 } } });

      // The proposing run replays from its journal, with the model server stopped, proposing nothing.
      await models.close();
      const trail = (await server.runtime.toolVersions!.trail('demo', 'word_tally')).length;
      expect(await replay(journal, server.runtime.registry)).toMatchObject({ ok: true, events: journal.length });
      expect((await server.runtime.toolVersions!.trail('demo', 'word_tally')).length).toBe(trail);
    } finally {
      await server.close();
      await models.close();
    }
  });
});
