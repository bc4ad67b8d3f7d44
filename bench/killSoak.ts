// The long version of the kill test: `node --import tsx bench/killSoak.ts [kills]` (default 1,000).
// SIGKILLs worker processes running plans against one SQLite file at seeded random moments,
// then checks that every run completed, every keyed effect happened exactly once and every
// journal verifies. Loopback-free, bounded by the kill count; it stops by itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killCampaign } from '../tests/support/killDriver.ts';

const kills = Number(process.argv[2] ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'cugar-soak-'));
try {
  const report = await killCampaign({ dir, kills, runs: kills * 3, steps: 6, seed: 1009, maxDelayMs: 40 });
  console.log(JSON.stringify(report, null, 2));
  const ok =
    report.kills >= kills && report.completed === report.runs && report.duplicateEffects === 0 && report.missingEffects === 0 && report.unverified === 0;
  console.log(ok ? 'soak passed' : 'soak FAILED');
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
