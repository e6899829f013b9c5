import { withTextOnlyToolResults } from '@agentq/registry';
import type { ToolSet } from 'ai';

/** Model APIs that take images inside a tool result (`LanguageModelV3.provider`). */
const TAKES_IMAGES_IN_TOOL_RESULTS = new Set(['anthropic.messages', 'openai.responses']);

/**
 * The run's tools with their results shaped for the model: Anthropic Messages and OpenAI
 * Responses get the images of MCP results as image parts; every other model (chat completions,
 * OpenAI-compatible servers, the scripted model) gets each image described in text.
 */
export function fitToolResultsToModel(tools: ToolSet, provider: string): ToolSet {
  return TAKES_IMAGES_IN_TOOL_RESULTS.has(provider) ? tools : withTextOnlyToolResults(tools);
}
