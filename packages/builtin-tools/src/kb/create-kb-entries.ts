import { BUILTIN_TOOL_NAMES, type ToolApplyScope, type ToolEntry } from '@agentq/registry';
import { AgentqError, knowledgeBaseNameSchema, type ErrorCode } from '@agentq/shared';
import { tool as defineTool, type Tool } from 'ai';
import { z } from 'zod';
import type { KnowledgeBaseReader } from '@agentq/shared';

/** Chunks `kb_search` returns when the model does not ask for a number. */
export const DEFAULT_KB_SEARCH_LIMIT = 5;
/** Most chunks one `kb_search` call returns. */
export const MAX_KB_SEARCH_LIMIT = 20;

/** Error codes of `kb_search` and `kb_list`. */
export const KB_TOOL_ERROR_CODES = {
  /** The worker was started without a knowledge-base reader. */
  unavailable: 'KB_UNAVAILABLE',
  /** The model named a knowledge base the run may not read. */
  notAllowed: 'KB_NOT_ALLOWED',
} as const satisfies Record<string, ErrorCode>;

const kbSearchInputSchema = z.strictObject({
  query: z.string().min(1).max(1000).describe('What to look for.'),
  kb: knowledgeBaseNameSchema.optional().describe('One knowledge base to search; all of the run’s when left out.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_KB_SEARCH_LIMIT)
    .optional()
    .describe(`How many passages to return (default ${DEFAULT_KB_SEARCH_LIMIT}).`),
});

const kbListInputSchema = z.strictObject({});

function readerOrFail(reader: KnowledgeBaseReader | undefined): KnowledgeBaseReader {
  if (reader) return reader;
  throw new AgentqError({
    code: KB_TOOL_ERROR_CODES.unavailable,
    message: 'knowledge bases are not available on this worker',
  });
}

function kbsOf(scope: ToolApplyScope): readonly string[] {
  return scope.settings?.knowledgeBases ?? [];
}

function kbSearchTool(reader: KnowledgeBaseReader | undefined, kbs: readonly string[]): Tool {
  return defineTool({
    description:
      'Search the knowledge bases this run may read. Returns the best passages, each with its knowledge base, version, source and location (file and heading, or page).',
    inputSchema: kbSearchInputSchema,
    metadata: { source: 'builtin' },
    async execute(input, executionOptions) {
      const available = readerOrFail(reader);
      if (input.kb !== undefined && !kbs.includes(input.kb)) {
        throw new AgentqError({
          code: KB_TOOL_ERROR_CODES.notAllowed,
          message: `knowledge base ${input.kb} is not one this run may read (${kbs.length === 0 ? 'none' : kbs.join(', ')})`,
        });
      }
      const results = await available.search({
        query: input.query,
        kbs: input.kb === undefined ? kbs : [input.kb],
        limit: input.limit ?? DEFAULT_KB_SEARCH_LIMIT,
        signal: executionOptions.abortSignal,
      });
      return results.length === 0 ? { results, note: 'Nothing matched. Try other words.' } : { results };
    },
  });
}

function kbListTool(reader: KnowledgeBaseReader | undefined, kbs: readonly string[]): Tool {
  return defineTool({
    description: 'List the knowledge bases this run may read, with their documents.',
    inputSchema: kbListInputSchema,
    metadata: { source: 'builtin' },
    async execute() {
      const available = readerOrFail(reader);
      return { knowledgeBases: kbs.length === 0 ? [] : await available.list({ kbs }) };
    },
  });
}

const hasKnowledgeBases = (scope: ToolApplyScope) => kbsOf(scope).length > 0;

/**
 * The `kb_search` and `kb_list` entries (namespace `kb`). They apply to a run whose
 * `assistant.settings.knowledgeBases` names at least one knowledge base, and each run's tools are
 * bound to exactly those. Without a reader they answer with a `KB_UNAVAILABLE` tool error; the
 * run goes on.
 */
export function createKbEntries(reader: KnowledgeBaseReader | undefined): ToolEntry[] {
  return [
    {
      name: BUILTIN_TOOL_NAMES.kbSearch,
      namespace: 'kb',
      description: 'Search the team’s knowledge bases for passages.',
      defer: 'auto',
      // Unbound, the tool may read no knowledge base: only a run's own binding names any.
      tool: kbSearchTool(reader, []),
      applies: hasKnowledgeBases,
      forRun: (scope) => kbSearchTool(reader, kbsOf(scope)),
    },
    {
      name: BUILTIN_TOOL_NAMES.kbList,
      namespace: 'kb',
      description: 'List the knowledge bases and their documents.',
      defer: 'auto',
      tool: kbListTool(reader, []),
      applies: hasKnowledgeBases,
      forRun: (scope) => kbListTool(reader, kbsOf(scope)),
    },
  ];
}
