import { describe, expect, it } from 'vitest';
import type { ToolEntry } from '../registry/tool-entry.js';
import { makeEntry, makeTool } from '../test-support/fixtures.js';
import { searchKeyOf, ToolSearchIndex } from './tool-search-index.js';
import { createWordnetSynonyms } from './wordnet-synonyms.js';

function entry(
  name: string,
  description: string,
  options: { label?: string; namespace?: string; params?: Record<string, unknown>; title?: string } = {},
): ToolEntry {
  const tool = makeTool({
    description,
    schema: { type: 'object', properties: options.params ?? {} },
  });
  if (options.title) (tool as { title?: string }).title = options.title;
  return makeEntry(name, { namespace: options.namespace ?? 'mcp:x', label: options.label, description, tool });
}

const pool = [
  entry('mcp__gitlab__createIssue', 'Create a new issue in a project.', { namespace: 'mcp:gl', label: 'mcp:GitLab' }),
  entry('mcp__github__createIssue', 'Create a new issue in a repository.', {
    namespace: 'mcp:gh',
    label: 'mcp:GitHub',
  }),
  entry('mcp__fs__readTextFile', 'Read the complete contents of a file as text.', {
    namespace: 'mcp:fs',
    params: { path: { type: 'string', description: 'Absolute path of the file' } },
  }),
  entry('mcp__fs__listDirectory', 'Get a detailed listing of all files and directories in a specified path.', {
    namespace: 'mcp:fs',
  }),
  entry('mcp__weather__forecast', 'Hourly forecast for a location.', {
    namespace: 'mcp:wx',
    params: { latitude: { type: 'number' }, longitude: { type: 'number' } },
  }),
  entry('mcp__mail__sendEmail', 'Deliver a message to recipients.', { namespace: 'mcp:mail', title: 'Send email' }),
];

function names(hits: ReturnType<ToolSearchIndex['search']>) {
  return hits.map((hit) => hit.entry.name);
}

describe('ToolSearchIndex', () => {
  it('matches a query verb to the other verbs of its class, below the verb itself', () => {
    const tools = [
      entry('mcp__tracker__listIssues', 'Issues of a project, newest first.'),
      entry('mcp__tracker__createIssue', 'Opens an issue in a project.'),
      entry('mcp__tracker__showIssue', 'One issue of a project with its comments.'),
    ];
    // The first stage alone: the reranker's scores are on another scale.
    const normalised = new ToolSearchIndex(tools, { rerank: false });
    const plain = new ToolSearchIndex(tools, { verbClassWeight: 0, rerank: false });
    // "list" is in no text but listIssues' name; "show" reaches it through its class.
    expect(names(plain.search('show me the project issues'))[0]).toBe('mcp__tracker__showIssue');
    expect(names(normalised.search('show me the project issues')).slice(0, 2)).toEqual([
      'mcp__tracker__showIssue',
      'mcp__tracker__listIssues',
    ]);
    expect(names(plain.search('show me the project issues')).indexOf('mcp__tracker__listIssues')).toBeGreaterThan(0);
    const hit = normalised.search('show me the project issues').find((one) => one.entry.name.endsWith('listIssues'));
    const before = plain.search('show me the project issues').find((one) => one.entry.name.endsWith('listIssues'));
    expect(hit?.score).toBeGreaterThan(before?.score ?? 0);
  });

  it('expands a query with words that share tools with it, when co-occurrence is on', () => {
    const tools = [
      entry('reportBug', 'Report a bug as an issue.'),
      entry('syncTracker', 'Sync the bug and issue tracker.'),
      entry('closeIssue', 'Close an issue.'),
      entry('forecast', 'Weather forecast.'),
    ];
    expect(names(new ToolSearchIndex(tools).search('bug'))).not.toContain('closeIssue');
    const expanded = new ToolSearchIndex(tools, {
      cooccurrence: { neighbours: 3, weight: 0.3, minShared: 2 },
      rerank: false,
    });
    expect(names(expanded.search('bug'))).toEqual(['reportBug', 'syncTracker', 'closeIssue']);
  });

  it('adds the words of the top hits to the query, when feedback is on', () => {
    const tools = [
      entry('restartServer', 'Restart the web server process.'),
      entry('monitor', 'Shows web server process uptime.'),
      entry('forecast', 'Weather forecast.'),
    ];
    expect(names(new ToolSearchIndex(tools).search('restart'))).toEqual(['restartServer']);
    const withFeedback = new ToolSearchIndex(tools, { feedback: { documents: 1, terms: 5, weight: 0.5 } });
    expect(names(withFeedback.search('restart'))).toEqual(['restartServer', 'monitor']);
  });

  it('indexes enum values of parameters', () => {
    const index = new ToolSearchIndex([
      entry('mcp__x__setMode', 'Sets the mode.', {
        params: { mode: { type: 'string', enum: ['turbo', 'quiet'] } },
      }),
      entry('mcp__x__other', 'Something else.'),
    ]);
    expect(names(index.search('turbo'))).toEqual(['mcp__x__setMode']);
  });

  it('puts an exact name match first, whichever form the query uses', () => {
    const index = new ToolSearchIndex(pool);
    expect(names(index.search('mcp__fs__listDirectory'))[0]).toBe('mcp__fs__listDirectory');
    expect(names(index.search('list_directory'))[0]).toBe('mcp__fs__listDirectory');
    expect(index.search('listDirectory')[0]?.match).toBe('exact-name');
  });

  it('puts a near-exact name match first', () => {
    const index = new ToolSearchIndex(pool);
    const hits = index.search('listDirectry');
    expect(hits[0]?.entry.name).toBe('mcp__fs__listDirectory');
    expect(hits[0]?.match).toBe('near-name');
  });

  it('ranks by description, parameter names and title', () => {
    const index = new ToolSearchIndex(pool);
    expect(names(index.search('show me what is inside a folder'))[0]).toBe('mcp__fs__listDirectory');
    expect(names(index.search('latitude longitude'))[0]).toBe('mcp__weather__forecast');
    expect(names(index.search('send an email'))[0]).toBe('mcp__mail__sendEmail');
    expect(names(index.search('reading file contents'))[0]).toBe('mcp__fs__readTextFile');
  });

  it('uses the server label to tell look-alike tools apart', () => {
    const index = new ToolSearchIndex(pool);
    expect(names(index.search('open an issue on GitLab'))[0]).toBe('mcp__gitlab__createIssue');
    expect(names(index.search('open an issue on GitHub'))[0]).toBe('mcp__github__createIssue');
  });

  it('ranks a tool matching the whole need above look-alikes sharing one word', () => {
    const index = new ToolSearchIndex([
      entry('mcp__billing__invoices', 'Invoices of the account.', { title: 'Invoices' }),
      entry('mcp__reports__exportData', 'Export invoices and bills to CSV.'),
      entry('mcp__crm__exportUsers', 'Export users to CSV.'),
      entry('mcp__shop__exportOrders', 'Export orders to CSV.'),
      entry('mcp__ops__exportLogs', 'Export logs to CSV.'),
    ]);
    expect(names(index.search('export invoices as csv'))[0]).toBe('mcp__reports__exportData');
  });

  it('filters by namespace or label', () => {
    const index = new ToolSearchIndex(pool);
    expect(names(index.search('create issue', { namespace: 'mcp:GitHub' }))).toEqual(['mcp__github__createIssue']);
    expect(names(index.search('create issue', { namespace: 'mcp:gh' }))).toEqual(['mcp__github__createIssue']);
  });

  it('returns at most k results, 8 by default', () => {
    const many = Array.from({ length: 30 }, (_, index) => entry(`tool_${index}`, `Fetch record number ${index}.`));
    const index = new ToolSearchIndex(many);
    expect(index.search('fetch record')).toHaveLength(8);
    expect(index.search('fetch record', { limit: 3 })).toHaveLength(3);
  });

  it('returns nothing for a query that matches nothing', () => {
    expect(new ToolSearchIndex(pool).search('zzqx')).toEqual([]);
  });

  it('finds "close the browser page" for browser_close', () => {
    const index = new ToolSearchIndex([
      ...pool,
      entry('mcp__pw__browser_close', 'Close the page', { namespace: 'mcp:pw' }),
      entry('mcp__pw__browser_navigate', 'Navigate to a URL', { namespace: 'mcp:pw' }),
    ]);
    expect(names(index.search('close the browser page'))[0]).toBe('mcp__pw__browser_close');
  });

  it("filters to a run's keys at query time, without another index", () => {
    const index = new ToolSearchIndex(pool);
    const keys = new Set(['mcp__gitlab__createIssue', 'mcp__fs__readTextFile']);
    expect(names(index.search('create a new issue', { keys }))).toEqual(['mcp__gitlab__createIssue']);
    expect(names(index.search('mcp__github__createIssue', { keys })).every((name) => keys.has(name))).toBe(true);
    expect(index.list({ keys }).map((found) => found.name)).toEqual([...keys].sort());
  });

  it('updates incrementally: replaced and removed documents leave no trace', () => {
    const index = new ToolSearchIndex(pool);
    const before = index.stats;
    index.upsert(entry('mcp__weather__forecast', 'Tide tables for a harbour.', { namespace: 'mcp:wx' }));
    expect(names(index.search('hourly'))).not.toContain('mcp__weather__forecast');
    expect(names(index.search('tide tables'))).toEqual(['mcp__weather__forecast']);
    expect(index.remove('mcp__weather__forecast')).toBe(true);
    expect(index.search('tide tables')).toEqual([]);
    expect(index.size).toBe(pool.length - 1);
    expect(index.stats).toMatchObject({
      documentWrites: before.documentWrites + 1,
      documentRemovals: before.documentRemovals + 1,
    });
    // Scores after the round trip equal those of an index built from scratch over the same tools.
    const fresh = new ToolSearchIndex(pool.filter((one) => one.name !== 'mcp__weather__forecast'));
    expect(index.search('file contents').map((hit) => hit.score)).toEqual(
      fresh.search('file contents').map((hit) => hit.score),
    );
  });

  it('keys MCP documents by tool id', () => {
    const mcpEntry = {
      ...pool[0]!,
      mcp: { serverId: 'gl', toolName: 'createIssue', toolId: 'gl:createIssue', schemaDigest: 'd' },
    };
    expect(searchKeyOf(mcpEntry)).toBe('gl:createIssue');
    expect(searchKeyOf(pool[1]!)).toBe('mcp__github__createIssue');
  });

  it('fuses a vector ranking with the lexical one when a query vector is given', () => {
    const index = new ToolSearchIndex(pool);
    index.setVector('mcp__weather__forecast', Float32Array.from([1, 0]));
    index.setVector('mcp__mail__sendEmail', Float32Array.from([0, 1]));
    // No word of the query is in the forecast tool; its vector is the closest.
    const hits = index.search('will it rain tomorrow', { queryVector: [1, 0.1] });
    expect(names(hits)[0]).toBe('mcp__weather__forecast');
    expect(index.search('will it rain tomorrow')).toEqual([]);
  });

  it('searches synonyms of a query word as weaker alternatives when given a synonym source', () => {
    const tools = [
      entry('mcp__kb__archiveFacts', 'Archive facts about a topic.', { namespace: 'mcp:kb' }),
      entry('mcp__kb__recallFacts', 'Recall facts about a topic.', { namespace: 'mcp:kb' }),
    ];
    const plain = new ToolSearchIndex(tools);
    const expanded = new ToolSearchIndex(tools, { synonyms: createWordnetSynonyms() });
    // "remember" is in neither tool: plainly it is a tie on "facts", broken by name.
    expect(names(plain.search('remember facts'))).toEqual(['mcp__kb__archiveFacts', 'mcp__kb__recallFacts']);
    // WordNet's first sense of "remember" lists "recall".
    expect(names(expanded.search('remember facts'))[0]).toBe('mcp__kb__recallFacts');
    const [direct] = expanded.search('recall facts');
    const [viaSynonym] = expanded.search('remember facts');
    expect(direct?.score).toBeGreaterThan(viaSynonym?.score ?? Number.POSITIVE_INFINITY);
  });
});

describe('ToolSearchIndex examples field', () => {
  const forecast = pool.find((one) => one.name === 'mcp__weather__forecast') as ToolEntry;
  const umbrellaTool = entry('mcp__rain__umbrellaAdvice', 'Whether to take an umbrella today.', {
    namespace: 'mcp:rain',
  });

  it('finds a tool by a word only its example requests contain, and forgets it when they are cleared', () => {
    const index = new ToolSearchIndex(pool);
    expect(names(index.search('will it drizzle tomorrow'))).not.toContain('mcp__weather__forecast');
    index.setExamples(searchKeyOf(forecast), ['will it drizzle tomorrow in Paris', 'do I need a coat this week']);
    expect(names(index.search('will it drizzle tomorrow'))[0]).toBe('mcp__weather__forecast');
    index.setExamples(searchKeyOf(forecast), undefined);
    expect(names(index.search('will it drizzle tomorrow'))).not.toContain('mcp__weather__forecast');
  });

  it('keeps examples across a replace of the document, and re-indexes only when they change', () => {
    const index = new ToolSearchIndex(pool);
    const key = searchKeyOf(forecast);
    index.setExamples(key, ['will it drizzle tomorrow']);
    const writes = index.stats.documentWrites;
    index.setExamples(key, ['will it drizzle tomorrow']);
    expect(index.stats.documentWrites).toBe(writes);
    index.upsert(forecast);
    expect(names(index.search('drizzle'))[0]).toBe('mcp__weather__forecast');
  });

  it('forgets the examples and vector of a removed document once asked, never those of a replaced one', () => {
    const index = new ToolSearchIndex(pool);
    const key = searchKeyOf(forecast);
    const other = pool.find((one) => one.name !== forecast.name) as ToolEntry;
    index.setExamples(key, ['will it drizzle tomorrow']);
    index.setVector(key, Float32Array.from([1, 0]));
    index.setVector(searchKeyOf(other), Float32Array.from([0, 1]));
    index.upsert(forecast); // a replace
    expect(index.forgetOrphans()).toBe(0);
    expect(index.retained).toEqual({ vectors: 2, examples: 1 });

    index.remove(key);
    expect(index.retained).toEqual({ vectors: 2, examples: 1 }); // kept until the caller is done re-registering
    expect(index.forgetOrphans()).toBe(2);
    expect(index.retained).toEqual({ vectors: 1, examples: 0 });
    expect(index.forgetOrphans()).toBe(0);
    // Registered again later, the tool starts without the old examples.
    index.upsert(forecast);
    expect(names(index.search('drizzle'))).not.toContain('mcp__weather__forecast');
  });

  it('weighs an example word below the same word in a description, by the examples weight', () => {
    // First-stage weighting: the reranker's scores are on another scale.
    const index = new ToolSearchIndex([...pool, umbrellaTool], { rerank: false });
    index.setExamples(searchKeyOf(forecast), ['should I take an umbrella']);
    expect(names(index.search('umbrella')).slice(0, 2)).toEqual([
      'mcp__rain__umbrellaAdvice',
      'mcp__weather__forecast',
    ]);
    const heavy = new ToolSearchIndex([...pool, umbrellaTool], { fieldWeights: { examples: 10 }, rerank: false });
    heavy.setExamples(searchKeyOf(forecast), ['should I take an umbrella']);
    expect(names(heavy.search('umbrella'))[0]).toBe('mcp__weather__forecast');
  });

  it('adds nothing to the ranking of a tool without examples', () => {
    const plain = new ToolSearchIndex(pool);
    const withOther = new ToolSearchIndex(pool);
    withOther.setExamples(searchKeyOf(forecast), ['will it drizzle tomorrow']);
    const scores = (index: ToolSearchIndex) => index.search('read file text').map((hit) => [hit.key, hit.score]);
    expect(scores(withOther)).toEqual(scores(plain));
  });
});
