import type { RunCheckpoint, RunSpec } from '@agentq/shared';

/** The checkpoint of a run that has done nothing yet: its input as the first messages. */
export function freshCheckpoint(options: {
  runId: string;
  /** The run's incarnation (`runIncarnationOf`). */
  incarnation: string;
  spec: RunSpec;
  /** Epoch ms. */
  now: number;
}): RunCheckpoint {
  const { spec } = options;
  const messages: RunCheckpoint['messages'] =
    'prompt' in spec.input
      ? [{ role: 'user', content: spec.input.prompt }]
      : (spec.input.messages as RunCheckpoint['messages']);
  return {
    runId: options.runId,
    incarnation: options.incarnation,
    messages,
    allowedNames: [],
    wireNames: {},
    inspectedNames: [],
    step: 0,
    steps: [],
    toolCalls: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    catalogVersion: {},
    pendingApprovals: [],
    executedToolCallIds: [],
    status: 'running',
    warnings: [],
    updatedAt: options.now,
  };
}
