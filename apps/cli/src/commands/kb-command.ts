import { AgentqError } from '@agentq/shared';
import type { AgentqClient, KbIngestInfo } from '@agentq/client';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { formatTable } from '../output/format-table.js';
import { suggestedAgentq } from '../output/shell-env-prefix.js';
import { withClient } from '../with-client.js';

/** `agentq kb create <name>`. */
export async function createKbCommand(io: CliIo, name: string, options: { description?: string }): Promise<number> {
  return await withClient(io, async (client, config) => {
    const definition = await client.createKb({
      name,
      ...(options.description !== undefined ? { description: options.description } : {}),
    });
    io.out(
      `Created knowledge base ${definition.name}. Add documents with \`${suggestedAgentq(config, io.env)} kb add ${definition.name} <path|url>\`.`,
    );
    return EXIT_CODES.ok;
  });
}

/** `agentq kb list [kb]`: every KB, or one KB's documents. */
export async function listKbsCommand(
  io: CliIo,
  name: string | undefined,
  options: { json?: boolean },
): Promise<number> {
  return await withClient(io, async (client, config) => {
    if (name !== undefined) {
      const kb = await client.getKb(name);
      if (options.json) {
        io.out(JSON.stringify(kb, null, 2));
        return EXIT_CODES.ok;
      }
      io.out(`${kb.name}: version ${kb.version}, ${kb.documents.length} documents, ${kb.chunks} chunks`);
      if (kb.documents.length > 0) {
        io.out('');
        io.out(
          formatTable(
            ['DOCUMENT', 'KIND', 'CHUNKS', 'SOURCE'],
            kb.documents.map((document) => [
              document.id,
              document.kind,
              String(document.chunks),
              document.label ?? document.source,
            ]),
          ),
        );
      }
      return EXIT_CODES.ok;
    }
    const kbs = await client.listKbs();
    if (options.json) {
      io.out(JSON.stringify(kbs, null, 2));
      return EXIT_CODES.ok;
    }
    if (kbs.length === 0) {
      io.out(`No knowledge bases. Create one with \`${suggestedAgentq(config, io.env)} kb create <name>\`.`);
      return EXIT_CODES.ok;
    }
    io.out(
      formatTable(
        ['NAME', 'VERSION', 'DOCUMENTS', 'CHUNKS', 'DESCRIPTION'],
        kbs.map((kb) => [
          kb.name,
          String(kb.version),
          String(kb.documents.length),
          String(kb.chunks),
          kb.description ?? '',
        ]),
      ),
    );
    return EXIT_CODES.ok;
  });
}

/** Options of `agentq kb add`. */
export interface AddKbSourceCommandOptions {
  wait?: boolean;
  timeout?: string;
  json?: boolean;
}

/**
 * `agentq kb add <kb> <path|url>...`: checks every source first, then enqueues one ingest per file
 * (folders are expanded here) or URL, all or nothing: one missing file queues none of them.
 * Prints what each source became. With `--wait`, follows the jobs and fails (exit 1) when one of
 * them failed.
 */
export async function addKbSourceCommand(
  io: CliIo,
  kb: string,
  targets: readonly string[],
  options: AddKbSourceCommandOptions,
): Promise<number> {
  const timeoutMs = Number(options.timeout ?? '600000');
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new AgentqError({ code: 'USAGE', field: 'timeout', message: '--timeout must be a positive number of ms' });
  }
  return await withClient(io, async (client, config) => {
    const sources = targets.map((target) => (/^https?:\/\//i.test(target) ? { url: target } : { path: target }));
    const added = await client.addKbSources(kb, sources, { origin: 'local' });
    const { jobs } = added;
    if (!options.json) {
      for (const source of added.sources) {
        io.out(`  ${source.source}: queued ${source.queued} ${source.queued === 1 ? 'document' : 'documents'}`);
      }
    }
    if (!options.wait) {
      if (options.json) io.out(JSON.stringify(added, null, 2));
      else io.out(`Queued ${jobs.length} document${jobs.length === 1 ? '' : 's'} for ${kb} (an indexer ingests them).`);
      return EXIT_CODES.ok;
    }
    const finished = await waitForIngests(client, jobs, timeoutMs, suggestedAgentq(config, io.env));
    if (options.json) io.out(JSON.stringify({ kb, jobs: finished }, null, 2));
    else {
      io.out(
        formatTable(
          ['SOURCE', 'OUTCOME', 'VERSION', 'CHUNKS'],
          finished.map((job) => [
            job.source,
            job.state === 'failed' ? `failed: ${job.failedReason ?? ''}` : (job.result?.status ?? job.state),
            job.result ? String(job.result.version) : '',
            job.result ? String(job.result.chunks) : '',
          ]),
        ),
      );
    }
    return finished.some((job) => job.state === 'failed') ? EXIT_CODES.failed : EXIT_CODES.ok;
  });
}

async function waitForIngests(
  client: AgentqClient,
  jobs: ReadonlyArray<{ jobId: string }>,
  timeoutMs: number,
  agentq: string,
): Promise<KbIngestInfo[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const infos = await Promise.all(jobs.map((job) => client.getKbIngest(job.jobId)));
    if (infos.every((info) => info.state === 'completed' || info.state === 'failed')) return infos;
    if (Date.now() > deadline) {
      throw new AgentqError({
        code: 'TIMEOUT',
        message: `ingest not finished after ${timeoutMs} ms (is an indexer running? start one with \`${agentq} indexer\`)`,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** `agentq kb remove <kb> [--document <id>]`. */
export async function removeKbCommand(io: CliIo, kb: string, options: { document?: string }): Promise<number> {
  return await withClient(io, async (client) => {
    if (options.document !== undefined) {
      const { version } = await client.removeKbDocument({ kb, documentId: options.document });
      io.out(`Removed document ${options.document} from ${kb} (now version ${version}).`);
      return EXIT_CODES.ok;
    }
    await client.removeKb(kb);
    io.out(`Removed knowledge base ${kb}.`);
    return EXIT_CODES.ok;
  });
}

/** `agentq kb search <kb[,kb...]> <query...>`: what `kb_search` would return. */
export async function searchKbCommand(
  io: CliIo,
  kbList: string,
  queryWords: readonly string[],
  options: { limit?: string; json?: boolean },
): Promise<number> {
  const limit = Number(options.limit ?? '5');
  if (!Number.isInteger(limit) || limit < 1 || limit > 50) {
    throw new AgentqError({ code: 'USAGE', field: 'limit', message: '--limit must be a whole number from 1 to 50' });
  }
  const kbs = kbList
    .split(',')
    .map((kb) => kb.trim())
    .filter((kb) => kb !== '');
  return await withClient(io, async (client) => {
    const hits = await client.searchKbs({ query: queryWords.join(' '), kbs, limit });
    if (options.json) {
      io.out(JSON.stringify(hits, null, 2));
      return EXIT_CODES.ok;
    }
    if (hits.length === 0) {
      io.out('No matches.');
      return EXIT_CODES.ok;
    }
    for (const hit of hits) {
      const where = [
        hit.location.file ?? hit.source,
        hit.location.heading,
        hit.location.page ? `page ${hit.location.page}` : undefined,
      ]
        .filter((part) => part !== undefined)
        .join(' › ');
      io.out(`${hit.score.toFixed(2)}  ${hit.kb} v${hit.version}  ${where}`);
      const text = hit.text.replace(/\s+/g, ' ');
      io.out(`      ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`);
    }
    return EXIT_CODES.ok;
  });
}
