import type { KbListing, KbSearchHit, KnowledgeBaseReader } from '@agentq/shared';

/** A knowledge base held in memory: its listing and its passages. */
export interface InMemoryKnowledgeBase {
  listing: KbListing;
  hits: KbSearchHit[];
}

/**
 * A {@link KnowledgeBaseReader} over fixed data, for tests: `search` returns the passages of the
 * asked knowledge bases whose text contains a word of the query, best score first. Every call is
 * recorded.
 */
export function createInMemoryKnowledgeBaseReader(bases: InMemoryKnowledgeBase[]): KnowledgeBaseReader & {
  calls: Array<{ method: 'search' | 'list'; kbs: readonly string[]; query?: string; limit?: number }>;
} {
  const calls: Array<{ method: 'search' | 'list'; kbs: readonly string[]; query?: string; limit?: number }> = [];
  return {
    calls,
    async search({ query, kbs, limit }) {
      calls.push({ method: 'search', kbs: [...kbs], query, limit });
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      return bases
        .filter((base) => kbs.includes(base.listing.kb))
        .flatMap((base) => base.hits)
        .filter((hit) => words.some((word) => hit.text.toLowerCase().includes(word)))
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
    },
    async list({ kbs }) {
      calls.push({ method: 'list', kbs: [...kbs] });
      return bases.filter((base) => kbs.includes(base.listing.kb)).map((base) => base.listing);
    },
  };
}

/** Two small knowledge bases: `handbook` (two passages) and `runbooks` (one). */
export function sampleKnowledgeBases(): InMemoryKnowledgeBase[] {
  const hit = (kb: string, documentId: string, text: string, score: number, heading: string): KbSearchHit => ({
    kb,
    version: 3,
    documentId,
    source: `docs/${documentId}.md`,
    location: { file: `docs/${documentId}.md`, heading },
    text,
    score,
  });
  return [
    {
      listing: {
        kb: 'handbook',
        version: 3,
        description: 'How the team works',
        documents: [
          { id: 'oncall', source: 'docs/oncall.md', title: 'On call', chunks: 4 },
          { id: 'leave', source: 'docs/leave.md', title: 'Leave', chunks: 2 },
        ],
      },
      hits: [
        hit('handbook', 'oncall', 'The on-call engineer answers pages within 15 minutes.', 0.9, 'Paging'),
        hit('handbook', 'leave', 'Book leave two weeks ahead in the calendar.', 0.5, 'Booking'),
      ],
    },
    {
      listing: {
        kb: 'runbooks',
        version: 1,
        documents: [{ id: 'redis', source: 'docs/redis.md', title: 'Redis', chunks: 6 }],
      },
      hits: [hit('runbooks', 'redis', 'When Redis pages, check memory first.', 0.7, 'Memory')],
    },
  ];
}
