import type { RunSpecInput } from '@agentq/shared';

/** The prompt of the demo run. */
export const DEMO_PROMPT =
  'Find a tool that adds two numbers and use it to add 2 and 3. Then echo "Hello from the agentq demo".';

/**
 * The demo run: the shipped server-everything (`everything`, whose `echo` is `alwaysAsk`), so the
 * run finds and invokes a deferred tool through the meta tools, then parks for approval. With the
 * scripted demo model the context window is kept small, so deferral applies to the 20-odd tools.
 */
export function demoRunSpec(model: string): RunSpecInput {
  return {
    assistant: {
      model,
      mcpServers: ['everything'],
      ...(model === 'scripted:demo' ? { contextWindow: 8_000 } : {}),
      system: 'You are the agentq demo assistant. Use the tools you are given; keep answers short.',
    },
    input: { prompt: DEMO_PROMPT },
    metadata: { source: 'agentq-demo' },
  };
}
