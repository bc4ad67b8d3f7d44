import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig, replay, type JournalEvent } from '../../src/core/index.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { PUBLISH_THROUGH_RESEARCH, registerPublishNote } from '../support/delegationTools.ts';
import { startModelServer } from '../support/modelServer.ts';

// The Node host takes delegation from its configuration (`delegation.profiles`, or
// CUGAR_DELEGATION_PROFILES): a plain POST /v1/runs of the default profile may hand a sub-goal to
// the agent of a configured profile; the sub-run is a run of its own on the host, readable over
// HTTP, and both runs keep their reflections in their profiles' memory.

const dir = mkdtempSync(join(tmpdir(), 'cugar-delegation-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function call(server: RunningServer, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${server.localToken}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe('the Node host with delegation configured', () => {
  it('lets an agent run of the default profile delegate to a configured profile, over HTTP', { timeout: 60_000 }, async () => {
    const models = await startModelServer([
      { calls: [{ name: 'delegate', args: { profile: 'research', goal: 'Find the opening year of the Lyon office' } }] },
      // The research agent's run, inside the delegate call, and its reflection.
      { calls: [{ name: 'lookup_fact', args: { topic: 'Lyon office' } }] },
      { text: 'The Lyon office opened in 2019.' },
      { text: 'Looked the Lyon office up with lookup_fact: 2019.' },
      // The demo agent answers with what came back, then reflects.
      { text: 'Research says the Lyon office opened in 2019.' },
      { text: 'Delegated the question to research, which found 2019.' },
    ]);
    const config = parseConfig({ CUGAR_DELEGATION_PROFILES: 'research, missing', CUGAR_DELEGATION_DEPTH: '1' }).config;
    expect(config).toMatchObject({ delegationProfiles: ['research', 'missing'], delegationMaxDepth: 1 });
    const server = await startServer({
      port: 0,
      dataDir: join(dir, 'data'),
      corpusDir: join(dir, 'no-corpus'),
      config,
      modelEnv: { CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small' },
      log: () => undefined,
    });
    const looked: string[] = [];
    server.runtime.registry.register('research', 'lookup_fact', {
      description: 'Look a fact up in the research archive',
      parameters: z.object({ topic: z.string() }),
      idempotent: true,
      handler: ({ topic }) => {
        looked.push(topic);
        return { topic, fact: 'opened in 2019' };
      },
    });
    try {
      const outcome = await call(server, '/v1/runs?wait=20', { goal: 'When did the Lyon office open? Ask research.', profile: 'demo' });
      expect(outcome).toMatchObject({ status: 'completed', outputs: { answer: 'Research says the Lyon office opened in 2019.' } });
      expect(looked).toEqual(['Lyon office']);
      // Only profiles the host has are offered; the sub-run, at depth 1, may not delegate again.
      expect(models.requests[0]!.body.tools!.map((t) => t.function.name)).toContain('delegate');
      expect(models.requests[1]!.body.tools!.map((t) => t.function.name)).toEqual(['lookup_fact', 'propose_tool']);

      const runId = outcome['runId'] as string;
      const journal = (await call(server, `/v1/runs/${runId}/journal?raw=true`))['events'] as JournalEvent[];
      const inputs = journal[0]!.type === 'stage' ? journal[0]!.data.inputs : undefined;
      expect(inputs?.agent?.delegate).toEqual({ profiles: ['research'], maxDepth: 1 });
      const childId = `${runId}.t1.call-0`;
      expect(await call(server, `/v1/runs/${encodeURIComponent(childId)}`)).toMatchObject({
        runId: childId,
        profile: 'research',
        status: 'completed',
        outputs: { answer: 'The Lyon office opened in 2019.' },
      });
      // Each run's reflection is in its own profile's memory.
      for (const [profile, summary] of [
        ['demo', 'Delegated the question to research, which found 2019.'],
        ['research', 'Looked the Lyon office up with lookup_fact: 2019.'],
      ] as const)
        expect((await call(server, `/v1/memory/facts?profile=${profile}&namespace=reflection`))['facts']).toMatchObject([{ value: { summary } }]);

      await models.close();
      const child = (await call(server, `/v1/runs/${encodeURIComponent(childId)}/journal?raw=true`))['events'] as JournalEvent[];
      expect(await replay(journal, server.runtime.registry)).toMatchObject({ ok: true, events: journal.length });
      expect(await replay(child, server.runtime.registry)).toMatchObject({ ok: true, events: child.length });
    } finally {
      await server.close();
      await models.close();
    }
  });

  it('pauses the delegating run while its sub-run waits for a person, across a restart of the host', { timeout: 60_000 }, async () => {
    const models = await startModelServer([...PUBLISH_THROUGH_RESEARCH]);
    const config = parseConfig({ CUGAR_DELEGATION_PROFILES: 'research' }).config;
    const published: string[] = [];
    const host = async () => {
      const server = await startServer({
        port: 0,
        dataDir: join(dir, 'approval'),
        corpusDir: join(dir, 'no-corpus'),
        config,
        modelEnv: { CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small' },
        log: () => undefined,
      });
      registerPublishNote(server.runtime.registry, published);
      return server;
    };
    let server = await host();
    let runId: string;
    let approvalId: string;
    try {
      const paused = await call(server, '/v1/runs?wait=20', { goal: 'Publish the Lyon note through research.', profile: 'demo' });
      runId = paused['runId'] as string;
      expect(paused).toMatchObject({ status: 'paused', waitingFor: { runId: `${runId}.t1.call-0` } });
      const approvals = (await call(server, '/v1/approvals?status=pending'))['approvals'] as Array<{ approvalId: string; runId: string; tool: string }>;
      expect(approvals).toMatchObject([{ runId: `${runId}.t1.call-0`, tool: 'publish_note' }]);
      approvalId = approvals[0]!.approvalId;
    } finally {
      await server.close();
    }
    server = await host();
    try {
      const decided = await call(server, `/v1/approvals/${encodeURIComponent(approvalId)}`, { decision: 'approve' });
      expect(decided).toMatchObject({ runId: `${runId}.t1.call-0`, status: 'completed' });
      expect(published).toEqual(['Lyon office']);
      expect(await call(server, `/v1/runs/${runId}`)).toMatchObject({ status: 'completed', outputs: { answer: 'Research published the Lyon note.' } });
      await models.close();
      const journal = (await call(server, `/v1/runs/${runId}/journal?raw=true`))['events'] as JournalEvent[];
      expect(journal.filter((e) => e.type === 'run_paused').map((e) => e.data)).toMatchObject([{ reason: 'awaiting_subrun' }]);
      expect(await replay(journal, server.runtime.registry)).toMatchObject({ ok: true, events: journal.length });
    } finally {
      await server.close();
      await models.close();
    }
  });
});
