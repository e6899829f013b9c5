import { runResultSchema, type RunCheckpoint, type RunResult, type RunSpec } from '@agentq/shared';
import type { RunTools } from './build-run-tools.js';

/**
 * The job's return value, read off the final checkpoint. `runTools` adds the tool set's figures;
 * a run found already completed has none to give.
 */
export function runResultOf(checkpoint: RunCheckpoint, spec: RunSpec, runTools?: RunTools): RunResult {
  const last = checkpoint.steps.at(-1);
  return runResultSchema.parse({
    runId: checkpoint.runId,
    text: last?.text ?? '',
    finishReason: last
      ? checkpoint.step >= spec.assistant.maxSteps && last.finishReason === 'tool-calls'
        ? 'max-steps'
        : last.finishReason
      : 'stop',
    steps: checkpoint.steps,
    toolCalls: checkpoint.toolCalls,
    usage: checkpoint.usage,
    catalogVersion: checkpoint.catalogVersion,
    tools: runTools
      ? {
          inline: Object.keys(runTools.tools).length - (runTools.strategy === 'native' ? runTools.deferred.length : 0),
          deferred: runTools.deferred.length,
          inlineTokens: runTools.inlineTokens,
          deferredTokens: runTools.deferredTokens,
          ...(runTools.deferred.length > 0 ? { exposition: runTools.strategy } : {}),
        }
      : undefined,
    warnings: checkpoint.warnings.length > 0 ? checkpoint.warnings : undefined,
  });
}
