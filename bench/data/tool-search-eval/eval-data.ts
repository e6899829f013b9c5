// Schemas and the split rule of the tool-search evaluation set (tools.json, queries.json). Shared
// by the validation test and by any benchmark that reads the set.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const here = dirname(fileURLToPath(import.meta.url));

/** One server's capture: the tools are kept exactly as its `tools/list` returned them. */
export const evalServerSchema = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/),
  package: z.string(),
  version: z.string(),
  tools: z.array(z.looseObject({ name: z.string(), description: z.string().optional() })),
});

export const evalToolsSchema = z.object({
  capturedAt: z.string(),
  servers: z.array(evalServerSchema),
});

export const queryKinds = ['paraphrase', 'direct', 'abbreviation', 'product'] as const;

export const evalQuerySchema = z.object({
  id: z.string().regex(/^q\d{4}$/),
  query: z.string().min(3),
  kind: z.enum(queryKinds),
  /** Every tool in the set that fully satisfies the need, as `<serverId>/<toolName>`. */
  expected: z.array(z.string().regex(/^[a-z0-9-]+\/.+$/)).min(1),
  split: z.enum(['dev', 'test']),
});

export const evalQueriesSchema = z.object({ queries: z.array(evalQuerySchema) });

export type EvalTools = z.infer<typeof evalToolsSchema>;
export type EvalQuery = z.infer<typeof evalQuerySchema>;

/**
 * The split is by server, so that no test-half server is ever seen while tuning: a server is in
 * `test` when the first byte of sha256(serverId) is odd, otherwise in `dev`.
 */
export function splitOfServer(serverId: string): 'dev' | 'test' {
  const firstByte = createHash('sha256').update(serverId).digest()[0] ?? 0;
  return firstByte % 2 === 1 ? 'test' : 'dev';
}

/** A query is `test` as soon as one of its expected tools is on a test-half server. */
export function splitOfQuery(expected: readonly string[]): 'dev' | 'test' {
  return expected.some((toolId) => splitOfServer(toolId.slice(0, toolId.indexOf('/'))) === 'test') ? 'test' : 'dev';
}

export async function loadEvalTools(): Promise<EvalTools> {
  return evalToolsSchema.parse(JSON.parse(await readFile(join(here, 'tools.json'), 'utf8')));
}

export async function loadEvalQueries(): Promise<EvalQuery[]> {
  return evalQueriesSchema.parse(JSON.parse(await readFile(join(here, 'queries.json'), 'utf8'))).queries;
}
