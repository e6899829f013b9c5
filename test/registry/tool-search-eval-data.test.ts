import { describe, expect, it } from 'vitest';
import {
  loadEvalQueries,
  loadEvalTools,
  splitOfQuery,
  splitOfServer,
} from '../../bench/data/tool-search-eval/eval-data.js';

// Checks the shape of the tool-search evaluation set; reads files only.
describe('tool-search evaluation data', () => {
  it('holds at least 80 distinct servers and 1 500 tools', async () => {
    const { servers } = await loadEvalTools();
    expect(servers.length).toBeGreaterThanOrEqual(80);
    expect(new Set(servers.map((server) => server.id)).size).toBe(servers.length);
    const toolCount = servers.reduce((sum, server) => sum + server.tools.length, 0);
    expect(toolCount).toBeGreaterThanOrEqual(1500);
    const lists = new Set(servers.map((server) => JSON.stringify(server.tools)));
    expect(lists.size).toBe(servers.length);
  });

  it('has at least 500 queries, unique ids, mostly paraphrases', async () => {
    const queries = await loadEvalQueries();
    expect(queries.length).toBeGreaterThanOrEqual(500);
    expect(new Set(queries.map((query) => query.id)).size).toBe(queries.length);
    expect(new Set(queries.map((query) => query.query.toLowerCase())).size).toBe(queries.length);
    const paraphrases = queries.filter((query) => query.kind === 'paraphrase').length;
    expect(paraphrases / queries.length).toBeGreaterThanOrEqual(0.6);
  });

  it('expects only tools that exist, each at most once per query', async () => {
    const { servers } = await loadEvalTools();
    const known = new Set(servers.flatMap((server) => server.tools.map((tool) => `${server.id}/${tool.name}`)));
    const missing = (await loadEvalQueries()).flatMap((query) =>
      query.expected.filter((toolId) => !known.has(toolId)).map((toolId) => `${query.id}: ${toolId}`),
    );
    expect(missing).toEqual([]);
    for (const query of await loadEvalQueries()) {
      expect(new Set(query.expected).size).toBe(query.expected.length);
    }
  });

  it('splits by server hash, with both halves non-empty', async () => {
    const queries = await loadEvalQueries();
    const wrong = queries.filter((query) => query.split !== splitOfQuery(query.expected)).map((query) => query.id);
    expect(wrong).toEqual([]);
    expect(queries.some((query) => query.split === 'dev')).toBe(true);
    expect(queries.some((query) => query.split === 'test')).toBe(true);
    const { servers } = await loadEvalTools();
    const halves = new Set(servers.map((server) => splitOfServer(server.id)));
    expect(halves).toEqual(new Set(['dev', 'test']));
  });

  it("keeps paraphrases free of the expected tools' own name words", async () => {
    // Product and server names may appear (they pick the product, not the tool); every other word
    // of an expected tool's name must be absent from a query labelled as a paraphrase.
    const { servers } = await loadEvalTools();
    const productWords = new Set([
      ...servers.flatMap((server) => server.id.split('-')),
      // product names that appear inside tool names of servers named otherwise
      ...['seer', 'helm', 'wwdc', 'loki', 'prometheus', 'gcloud', 'slack', 'playwright', 'puppeteer'],
    ]);
    const ignored = new Set(
      'get list create update delete add set the a an to of in on for and with from by my is api'.split(' '),
    );
    const words = (text: string) =>
      text
        .replace(/([a-z])([A-Z])/g, '$1 $2')
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter((word) => word && !ignored.has(word) && !productWords.has(word))
        .map((word) => (word.length > 4 ? word.replace(/(ies|es|s|ing|ed)$/, '') : word.replace(/s$/, '')));
    const leaks = (await loadEvalQueries())
      .filter((query) => query.kind === 'paraphrase')
      .flatMap((query) => {
        const queryWords = new Set(words(query.query));
        const shared = query.expected.flatMap((toolId) =>
          words(toolId.slice(toolId.indexOf('/') + 1)).filter((word) => queryWords.has(word)),
        );
        return shared.length > 0 ? [`${query.id}: ${shared.join(',')}`] : [];
      });
    expect(leaks).toEqual([]);
  });

  it('covers every server with at least two queries', async () => {
    const { servers } = await loadEvalTools();
    const queries = await loadEvalQueries();
    const thin = servers
      .map((server) => ({
        id: server.id,
        count: queries.filter((query) => query.expected.some((toolId) => toolId.startsWith(`${server.id}/`))).length,
      }))
      .filter((entry) => entry.count < 2)
      .map((entry) => entry.id);
    expect(thin).toEqual([]);
  });
});
