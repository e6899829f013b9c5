import type { RunSpecInput } from '@agentq/shared';

/** Name of the sample knowledge base `agentq dev` ingests from the repository's `docs/` folder. */
export const SAMPLE_KB = 'agentq-docs';

/** The prompt of the knowledge base demo run. */
export const KB_DEMO_PROMPT = 'How does a run wait for a person to approve a tool call? Answer from the agentq docs.';

/**
 * The knowledge base demo (`--demo kb`): a run whose assistant may read the sample KB through the
 * builtin `kb_list` and `kb_search` tools. With the scripted model it lists the KB, searches it and
 * answers; with a real model the model decides. `assistant.settings.knowledgeBases` is the run
 * setting that turns the `kb_*` tools on.
 */
export function kbDemoRunSpec(model: string): RunSpecInput {
  const scripted = model.startsWith('scripted:');
  return {
    assistant: {
      model: scripted ? 'scripted:kb-demo' : model,
      system: 'You are the agentq docs assistant. Look things up in the knowledge base before you answer.',
      // Read by the builtin kb tools' `applies`; the field arrives with the builtin tools.
      settings: { knowledgeBases: [SAMPLE_KB] } as RunSpecInput['assistant']['settings'],
      ...(scripted
        ? {
            script: [
              { toolCalls: [{ toolName: 'kb_list', input: {} }] },
              {
                toolCalls: [
                  {
                    toolName: 'kb_search',
                    input: { query: 'run pauses for approval decision', kb: SAMPLE_KB, limit: 3 },
                  },
                ],
              },
              {
                text: 'The docs say a run parks on an approvals child job and resumes from its checkpoint once decided.',
              },
            ],
          }
        : {}),
    },
    input: { prompt: KB_DEMO_PROMPT },
    metadata: { source: 'agentq-demo-kb' },
  };
}
