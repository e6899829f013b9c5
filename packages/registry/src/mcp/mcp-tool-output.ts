import type { Tool } from 'ai';
import { DEFAULT_TOOL_RESULT_MAX_BYTES, limitToolResultText } from './limit-tool-result.js';
import type { McpCallResult } from './mcp-tool-caller.js';
import { summarizeMcpResult } from './summarize-mcp-result.js';

/** Image types every provider that takes images in tool results accepts. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Default bytes of images one tool result may hand the model (decoded size). */
export const DEFAULT_MEDIA_BUDGET_BYTES = 524_288;

/** One image of a tool result, as base64. */
export interface McpImage {
  mediaType: string;
  /** Base64, as the MCP server sent it. */
  data: string;
}

/**
 * A tool result with images: the text blocks, the images within the budget, and the text a
 * model that cannot take images gets instead (the result as text, each image described).
 */
export interface McpMediaOutput {
  type: 'mcp-media';
  text: string;
  images: McpImage[];
  fallback: string;
}

/** Whether `output` is an {@link McpMediaOutput}. */
export function isMcpMediaOutput(output: unknown): output is McpMediaOutput {
  return (
    typeof output === 'object' &&
    output !== null &&
    (output as { type?: unknown }).type === 'mcp-media' &&
    Array.isArray((output as { images?: unknown }).images)
  );
}

/** Decoded size of base64 text, without decoding it. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/**
 * What an MCP tool returns to the run: the result as text (see `summarizeMcpResult`) when it has
 * no image a model could see, else an {@link McpMediaOutput} holding its images, in order, as
 * long as their decoded bytes fit `budgetBytes`; an image past the budget, of another type, or
 * an audio or binary resource block stays a text description.
 *
 * The text (and the fallback) keeps at most `maxTextBytes` bytes of UTF-8, structured content
 * counted as its JSON; the rest is dropped with a note (see `limitToolResultText`), before the
 * result is masked, journaled, checkpointed or shown to the model.
 */
export function mcpToolOutput(
  result: McpCallResult,
  budgetBytes = DEFAULT_MEDIA_BUDGET_BYTES,
  maxTextBytes = DEFAULT_TOOL_RESULT_MAX_BYTES,
): string | McpMediaOutput {
  const fallback = limitToolResultText(summarizeMcpResult(result), maxTextBytes);
  const images: McpImage[] = [];
  const texts: string[] = [];
  let spent = 0;
  for (const block of result.content ?? []) {
    const record = block as Record<string, unknown>;
    if (record.type === 'image' && typeof record.data === 'string' && typeof record.mimeType === 'string') {
      const size = decodedBytes(record.data);
      if (IMAGE_TYPES.has(record.mimeType) && spent + size <= budgetBytes) {
        spent += size;
        images.push({ mediaType: record.mimeType, data: record.data });
        continue;
      }
      texts.push(
        `[image: ${record.mimeType}, ${size} bytes, not shown: over the ${budgetBytes}-byte budget or an unsupported type]`,
      );
      continue;
    }
    const text = summarizeMcpResult({ content: [block] });
    if (text !== '') texts.push(text);
  }
  if (images.length === 0) return fallback;
  return { type: 'mcp-media', text: limitToolResultText(texts.join('\n'), maxTextBytes), images, fallback };
}

/**
 * `toModelOutput` of MCP tools: images as image parts after the text, for providers that take
 * them in tool results; everything else as before (text as text, anything else as JSON).
 */
export const mcpToolModelOutput: NonNullable<Tool<unknown, unknown>['toModelOutput']> = ({ output }) => {
  if (isMcpMediaOutput(output)) {
    return {
      type: 'content',
      value: [
        ...(output.text === '' ? [] : [{ type: 'text' as const, text: output.text }]),
        ...output.images.map((image) => ({
          type: 'image-data' as const,
          data: image.data,
          mediaType: image.mediaType,
        })),
      ],
    };
  }
  return typeof output === 'string'
    ? { type: 'text', value: output }
    : { type: 'json', value: (output ?? null) as never };
};

/** {@link mcpToolModelOutput} for a model that takes no images in tool results: the text fallback. */
const textOnlyModelOutput: NonNullable<Tool<unknown, unknown>['toModelOutput']> = (options) =>
  isMcpMediaOutput(options.output) ? { type: 'text', value: options.output.fallback } : mcpToolModelOutput(options);

// One text-only copy per tool object, shared by every run that shows the tool to such a model.
const textOnlyCopies = new WeakMap<Tool, Tool>();

/**
 * `tools` for a model that cannot take images in tool results: an MCP result with images reaches
 * it as its text fallback, each image described. Other tools are returned as they are.
 */
export function withTextOnlyToolResults(tools: Record<string, Tool>): Record<string, Tool> {
  const out: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    out[name] = tool.toModelOutput === mcpToolModelOutput ? textOnlyCopyOf(tool) : tool;
  }
  return out;
}

function textOnlyCopyOf(tool: Tool): Tool {
  let copy = textOnlyCopies.get(tool);
  if (!copy) {
    copy = { ...tool, toModelOutput: textOnlyModelOutput };
    textOnlyCopies.set(tool, copy);
  }
  return copy;
}
