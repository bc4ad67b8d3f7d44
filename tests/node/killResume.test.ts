import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killCampaign } from '../support/killDriver.ts';

const dir = mkdtempSync(join(tmpdir(), 'cugar-kill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('real crash test: SIGKILL a process running plans against SQLite', () => {
  it('survives 200 seeded kills: every run completes, every keyed effect happens exactly once, every journal verifies', { timeout: 300_000 }, async () => {
    const report = await killCampaign({ dir, kills: 200, runs: 600, steps: 6, seed: 7, maxDelayMs: 40 });
    expect(report.kills).toBeGreaterThanOrEqual(200);
    expect(report.runs).toBe(600);
    expect(report.completed).toBe(600);
    expect(report.duplicateEffects).toBe(0);
    expect(report.missingEffects).toBe(0);
    expect(report.ledgerLines).toBe(600 * 6);
    expect(report.unverified).toBe(0);
  });
});
