import type { RunCheckpoint, RunWarning } from '@agentq/shared';
import type { RunTools } from './build-run-tools.js';

/**
 * The checkpoint with what this attempt's tool build learned: the catalog versions it read, the
 * names it showed the model (kept for good, since the model's history holds them) and its
 * warnings (accumulated, one per code and server).
 */
export function withRunTools(
  checkpoint: RunCheckpoint,
  runTools: Pick<RunTools, 'catalogVersion' | 'wireNames' | 'warnings'>,
): RunCheckpoint {
  return {
    ...checkpoint,
    catalogVersion: { ...checkpoint.catalogVersion, ...runTools.catalogVersion },
    wireNames: { ...checkpoint.wireNames, ...runTools.wireNames },
    warnings: mergeWarnings(checkpoint.warnings, runTools.warnings),
  };
}

function mergeWarnings(known: readonly RunWarning[], found: readonly RunWarning[]): RunWarning[] {
  const out = [...known];
  for (const warning of found) {
    if (!out.some((each) => each.code === warning.code && each.serverId === warning.serverId)) out.push(warning);
  }
  return out;
}
