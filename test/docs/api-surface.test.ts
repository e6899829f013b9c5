import { describe, expect, it } from 'vitest';
import { apiReports, staleReports } from '../../scripts/api-surface.js';

// Each workspace's exports are pinned in api/<workspace>.api.txt: changing what a package offers is
// a reviewed change of its report (`npx tsx scripts/api-surface.ts --write`), never a side effect.
describe('the public surface of every workspace', () => {
  const reports = apiReports();

  it('covers every workspace with an entry point', () => {
    expect([...reports.keys()]).toEqual(expect.arrayContaining(['@agentq/shared', '@agentq/store', '@agentq/client']));
    for (const report of reports.values()) expect(report).toMatch(/\n## \.\n/);
  });

  it('matches the written reports', () => {
    expect(staleReports(reports)).toEqual([]);
  });

  it("exports each app's start function", () => {
    const roles = ['@agentq/catalog-warmer', '@agentq/agent-worker', '@agentq/api', '@agentq/indexer'];
    for (const app of roles) expect(reports.get(app), app).toMatch(/\nfunction start[A-Z]\w*\n/);
    expect(reports.get('@agentq/cli')).toContain('\nfunction runCli\n');
  });
});
