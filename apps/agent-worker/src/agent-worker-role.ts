import { openKnowledgeBaseReader } from '@agentq/kb';
import { createEmbedder } from '@agentq/models';
import type { RoleDefinition } from '@agentq/shared';
import { startAgentWorker } from './start-agent-worker.js';

/**
 * The agent worker as a process role (`agentq worker`, `apps/agent-worker/src/main.ts`). Closing it
 * lets active runs finish or releases them to resume elsewhere.
 */
export const agentWorkerRole: RoleDefinition = {
  name: 'agent-worker',
  serviceName: 'agentq-worker',
  async start({ config, logger, env }) {
    // kb_search / kb_list read knowledge bases through this reader (cache-only, loaded per version).
    // With an embedding model, kb_search is hybrid (the indexer embeds chunks with the same model).
    const knowledgeBases = openKnowledgeBaseReader({ config, logger, embedder: createEmbedder(config) });
    const worker = await startAgentWorker({ config, logger, env, knowledgeBaseReader: knowledgeBases.reader }).catch(
      async (error: unknown) => {
        await knowledgeBases.close();
        throw error;
      },
    );
    return {
      async close() {
        await worker.close();
        await knowledgeBases.close();
      },
    };
  },
};
