import { formatChaosReport, runChaos } from '../test/chaos/chaos-fleet.js';

// `npm run chaos [-- --runs N --kills K --seed S]`: a fleet of real processes (2 warmers, 3 workers,
// 1 API) on a private redis-server with AOF, 500 runs (a third gated, decided at random over
// REST), kill -9 of workers and warmers every few seconds and one Redis restart. Prints the table
// and exits non-zero when a goal (0 lost runs, 0 duplicated tool calls, 0 lost approvals, every
// run in the state its decisions imply) is missed.
const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const index = args.indexOf(`--${name}`);
  const value = index >= 0 ? Number(args[index + 1]) : Number.NaN;
  return Number.isFinite(value) ? value : fallback;
};
const seed = option('seed', Date.now() % 1_000_000);
const report = await runChaos({
  runs: option('runs', 500),
  kills: option('kills', 12),
  seed,
  log: (line) => console.error(`[chaos] ${line}`),
});
console.log(formatChaosReport(report, { seed }));
const failed =
  report.lostRuns.length + report.duplicated.length + report.lostApprovals.length + report.wrongState.length > 0;
process.exit(failed ? 1 : 0);
