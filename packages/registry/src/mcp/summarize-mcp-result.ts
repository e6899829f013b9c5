import type { McpCallResult } from './mcp-tool-caller.js';

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** One content block as text for the model. Binary data is described, never inlined. */
function summarizeBlock(block: Record<string, unknown>): string {
  switch (block.type) {
    case 'text':
      return text(block.text) ?? '';
    case 'image':
      return `[image: ${text(block.mimeType) ?? 'unknown type'}, not shown]`;
    case 'audio':
      return `[audio: ${text(block.mimeType) ?? 'unknown type'}, not shown]`;
    case 'resource_link':
      // Trimmed, not matched: a pattern for the trailing blanks is quadratic in a server's text.
      return `[resource link: ${`${text(block.name) ?? ''} ${text(block.uri) ?? ''}`.trimEnd()}]`;
    case 'resource': {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      const body = text(resource.text);
      if (body !== undefined) return body;
      return `[resource: ${text(resource.uri) ?? 'unknown'} (${text(resource.mimeType) ?? 'binary'}), not shown]`;
    }
    default:
      return `[${text(block.type) ?? 'unknown'} content, not shown]`;
  }
}

/**
 * The text a model sees for an MCP result: text blocks as they are, binary blocks as a short
 * description such as `[image: image/png, not shown]`, and the structured content when the result
 * has nothing else.
 */
export function summarizeMcpResult(result: McpCallResult): string {
  const parts = (result.content ?? []).map(summarizeBlock).filter((part) => part !== '');
  if (parts.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return parts.join('\n');
}
