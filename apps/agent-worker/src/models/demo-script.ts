import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { ScriptStep } from '@agentq/shared';

/** Server id the built-in demo script expects for `@modelcontextprotocol/server-everything`. */
export const DEMO_SERVER_ID = 'everything';

/**
 * The script of `scripted:demo`. With server-everything configured as `everything`, and its `echo`
 * tool in the server's `alwaysAsk` list, it shows the three things agentq adds around a model:
 * it finds a deferred tool with `tool_search`, reads its signature with `tool_inspect` and runs it
 * with `tool_invoke`; then it calls an approval-gated tool, so the run parks until someone decides;
 * then it answers with what the tools returned.
 */
export const demoScript: readonly ScriptStep[] = [
  { toolCalls: [{ toolName: 'tool_search', input: { query: 'add two numbers sum' } }] },
  { toolCalls: [{ toolName: 'tool_inspect', input: { name: 'mcp__everything__getSum' } }] },
  { toolCalls: [{ toolName: 'tool_invoke', input: { name: 'mcp__everything__getSum', params: { a: 2, b: 3 } } }] },
  {
    text: 'Asking a person before I echo a message.',
    toolCalls: [{ toolName: 'mcp__everything__echo', input: { message: 'Hello from the agentq demo' } }],
  },
];

/** Final answer of the demo: a deterministic summary of the tool results in the prompt. */
export function demoFinalText(prompt: LanguageModelV3Prompt): string {
  const lines: string[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      lines.push(`- ${part.toolName}: ${summarise(part.output)}`);
    }
  }
  return ['Demo finished. What the tools returned:', ...lines].join('\n');
}

function summarise(output: unknown): string {
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
